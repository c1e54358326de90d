// What svckit states about its algorithms and constructions in the evidence document. These are
// descriptions, not results: every count in the document comes from a results file (build.ts).
import { createSecureContext } from 'node:tls';
import type { Algorithm, HybridConstruction } from '@svckit/sdk/evidence';

/** The post-quantum algorithms (spec: "the post-quantum algorithms the vendor implements"). */
export const POST_QUANTUM_ALGORITHMS: readonly Algorithm[] = [
  {
    parameterSet: 'ML-DSA-65',
    standard: 'FIPS 204',
    family: 'ML-DSA',
    purpose: 'digital signature',
    nistSecurityCategory: 3,
  },
  {
    parameterSet: 'ML-KEM-768',
    standard: 'FIPS 203',
    family: 'ML-KEM',
    purpose: 'key encapsulation',
    nistSecurityCategory: 3,
  },
];

/**
 * AES-256-GCM, which the wallet rules name beside the post-quantum algorithms (sync uses ML-KEM-768 with AES-256-GCM). The spec's `purpose` is "one of digital
 * signature, key encapsulation, key exchange", none of which fits a symmetric cipher, so it goes in
 * this extra top-level list (the spec allows extra top-level properties) with the same fields.
 */
export const SYMMETRIC_ALGORITHMS = [
  {
    parameterSet: 'AES-256-GCM',
    standard: 'FIPS 197, NIST SP 800-38D',
    family: 'AES',
    purpose: 'authenticated encryption',
    // NIST PQC category 5 is defined by the cost of a key search on AES-256.
    nistSecurityCategory: 5,
  },
] as const;

/** The OpenSSL TLS group name of the hybrid key exchange. */
export const HYBRID_TLS_GROUP = 'X25519MLKEM768';

/** True when this runtime's OpenSSL accepts the hybrid TLS group (a real check, run at build time). */
export function runtimeOffersHybridTls(): boolean {
  try {
    createSecureContext({ ecdhCurve: HYBRID_TLS_GROUP, minVersion: 'TLSv1.3' });
    return true;
  } catch {
    return false;
  }
}

/** The hybrid constructions (spec: "constructions pairing a post-quantum with a classical algorithm"). */
export function hybridConstructions(opensslVersion: string, tlsOffered: boolean): HybridConstruction[] {
  const out: HybridConstruction[] = [];
  if (tlsOffered)
    out.push({ name: HYBRID_TLS_GROUP, purpose: 'key exchange', package: `node:tls (OpenSSL ${opensslVersion})` });
  out.push({
    name: 'ML-KEM-768 + HKDF-SHA256 + AES-256-GCM memo envelope (D-032)',
    purpose: 'key encapsulation with authenticated encryption of transfer memos',
    package: `svckit src/crypto memoEnvelope (node:crypto, OpenSSL ${opensslVersion})`,
  });
  return out;
}

/** The category of one skip reason and the item it names (a parameter set, a pre-hash, what is not offered). */
function skipCategory(reason: string): { label: string; item?: string } {
  const outOfScope = /^parameter set (\S+) is out of scope/.exec(reason);
  if (outOfScope) return { label: 'parameter sets out of scope', item: outOfScope[1] };
  const preHashRefused = /^pre-hash (\S+) refused by (@[\w/.-]+)/.exec(reason);
  if (preHashRefused)
    return { label: `pre-hashes ${preHashRefused[2]} refuses below the parameter set's λ`, item: preHashRefused[1] };
  const notOffered = /^(.+) (?:is|are) not offered by (.+?)(?: \(.*\))?$/.exec(reason);
  if (notOffered) return { label: `not offered by ${notOffered[2]}`, item: notOffered[1] };
  return { label: reason };
}

/**
 * Groups skip reasons into readable categories with exact counts, e.g. "410 cases: parameter sets out
 * of scope (ML-DSA-44, ML-DSA-87)". Reasons that fit no category are kept verbatim.
 */
export function summariseSkipReasons(reasons: Record<string, number>): string {
  const categories = new Map<string, { count: number; items: Set<string> }>();
  const add = (label: string, count: number, item?: string) => {
    const entry = categories.get(label) ?? { count: 0, items: new Set<string>() };
    entry.count += count;
    if (item) entry.items.add(item);
    categories.set(label, entry);
  };
  for (const [reason, count] of Object.entries(reasons)) {
    const { label, item } = skipCategory(reason);
    add(label, count, item);
  }
  return [...categories]
    .sort((a, b) => b[1].count - a[1].count)
    .map(
      ([label, { count, items }]) =>
        `${count} ${count === 1 ? 'case' : 'cases'}: ${label}${items.size ? ` (${[...items].join('; ')})` : ''}`,
    )
    .join('. ');
}
