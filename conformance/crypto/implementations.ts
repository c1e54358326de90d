// The implementations the ACVP and Wycheproof runners can test, with their installed versions.
import { installedPackageVersion, opensslVersion } from '@svckit/sdk/crypto/backends';

/** Implementation ids for `--impl`. */
export const IMPLEMENTATION_IDS = ['openssl', 'noble'] as const;

/** One implementation id. */
export type ImplementationId = (typeof IMPLEMENTATION_IDS)[number];

/** Name and version of an implementation, for results files. */
export interface ImplementationInfo {
  /** Its id. */
  id: ImplementationId;
  /** Human name. */
  name: string;
  /** Library versions involved. */
  versions: Record<string, string>;
}

/** Describes an implementation with the versions installed now. */
export function describeImplementation(id: ImplementationId): ImplementationInfo {
  if (id === 'openssl')
    return {
      id,
      name: 'OpenSSL through node:crypto',
      versions: { openssl: opensslVersion(), node: process.versions.node },
    };
  return {
    id,
    name: '@noble/post-quantum, @noble/hashes and @noble/curves',
    versions: {
      '@noble/post-quantum': installedPackageVersion('@noble/post-quantum'),
      '@noble/hashes': installedPackageVersion('@noble/hashes'),
      '@noble/curves': installedPackageVersion('@noble/curves'),
    },
  };
}

/** Parses `--impl openssl|noble|all`. */
export function parseImplementations(value: string): ImplementationId[] {
  if (value === 'all') return [...IMPLEMENTATION_IDS];
  if ((IMPLEMENTATION_IDS as readonly string[]).includes(value)) return [value as ImplementationId];
  throw new Error(`"--impl" expected one of ${IMPLEMENTATION_IDS.join(', ')}, all; got "${value}"`);
}

/** Thrown by an implementation adapter for an interface it does not offer; the case is skipped with this reason. */
export class NotOffered extends Error {
  /** Builds the error; the message is the skip reason. */
  constructor(reason: string) {
    super(reason);
    this.name = 'NotOffered';
  }
}
