// The contract between the ACVP runner and the per-algorithm handlers.
import type { ImplementationId } from '../implementations.ts';
import { hexBytes, upperHex, type JsonObject } from '../vectors.ts';

/** The parameter sets in scope (ML-DSA-65 and ML-KEM-768, spec: "The default security level is NIST Category 3"). */
export const IN_SCOPE_PARAMETER_SETS: readonly string[] = ['ML-DSA-65', 'ML-KEM-768'];

/** Options every handler sees. */
export interface AcvpRunOptions {
  /** Run the SHA-3 large data tests (1 to 8 GiB each). */
  largeData: boolean;
}

/** One case as the handler sees it. */
export interface AcvpCase {
  /** The prompt's test group, without its tests (internalProjection's, when the set has no prompt). */
  group: JsonObject;
  /** The prompt's test case (internalProjection's, when the set has no prompt). */
  test: JsonObject;
  /** The expected result (expectedResults, else internalProjection), if the files give one. */
  expected: JsonObject | undefined;
  /** The internalProjection case, if published (it adds the reason a case must fail). */
  projection: JsonObject | undefined;
}

/** What a handler returns for one case and implementation. */
export type CaseOutcome =
  | { status: 'passed'; response: JsonObject }
  | { status: 'failed'; reason: string; response?: JsonObject }
  | { status: 'skipped'; reason: string };

/** Handles one ACVP algorithm/mode (e.g. ML-DSA sigGen, any revision in the same format). */
export interface AcvpSetHandler {
  /** Short label, e.g. "ML-DSA sigGen". */
  label: string;
  /** True for the vector sets this handler reads. */
  matches(header: { algorithm: string; mode: string | undefined; revision: string }): boolean;
  /** A short description of a group for reports. */
  describeGroup(group: JsonObject): string;
  /** A reason to skip the whole group for every implementation (an out-of-scope parameter set), if any. */
  groupSkipReason?(group: JsonObject): string | undefined;
  /** Runs one case with one implementation. */
  run(c: AcvpCase, impl: ImplementationId, options: AcvpRunOptions): CaseOutcome;
}

/** A field of the test case, else of its group (older revisions keep keys at group level). */
export function field(c: AcvpCase, name: string): unknown {
  return c.test[name] !== undefined ? c.test[name] : c.group[name];
}

/** A hex field of the test or group as bytes; a missing field is an error naming it. */
export function hexField(c: AcvpCase, name: string): Uint8Array {
  const value = field(c, name);
  if (value === undefined) throw new Error(`test case ${String(c.test.tcId)} has no field "${name}"`);
  return hexBytes(value, name);
}

/** A hex field, or undefined when absent. */
export function optionalHexField(c: AcvpCase, name: string): Uint8Array | undefined {
  const value = field(c, name);
  return value === undefined ? undefined : hexBytes(value, name);
}

/** The out-of-scope skip reason for a parameter set, or undefined when it is in scope. */
export function parameterSetSkipReason(group: JsonObject): string | undefined {
  const set = group.parameterSet;
  if (typeof set !== 'string') return 'the test group names no parameterSet';
  if (IN_SCOPE_PARAMETER_SETS.includes(set)) return undefined;
  return `parameter set ${set} is out of scope (svckit implements ML-DSA-65 and ML-KEM-768)`;
}

/**
 * Compares the named response fields with the expected ones (hex case-insensitively) and returns the
 * outcome; a missing expected result is a failure, never a pass.
 */
export function compareResponse(c: AcvpCase, response: JsonObject, fields: readonly string[]): CaseOutcome {
  if (!c.expected)
    return { status: 'failed', reason: 'the vector files give no expected result for this case', response };
  const differing: string[] = [];
  for (const name of fields) {
    if (!sameValue(response[name], c.expected[name])) differing.push(name);
  }
  if (differing.length === 0) return { status: 'passed', response };
  const why = typeof c.projection?.reason === 'string' ? ` (vector note: ${c.projection.reason})` : '';
  const detail = differing
    .map((name) => `${name}: expected ${preview(c.expected?.[name])}, got ${preview(response[name])}`)
    .join('; ');
  return { status: 'failed', reason: `${detail}${why}`, response };
}

/** A key pair made from a seed, as an adapter gives it: the secret key, or (OpenSSL) a test of the expected one. */
export interface SeededKeyPair {
  /** The public key. */
  publicKey: Uint8Array;
  /** The expanded secret key, when the implementation exposes it. */
  secretKey?: Uint8Array;
  /** Whether the seed expands to `expected` (for an implementation that keeps only the seed). */
  secretMatches?(expected: Uint8Array): boolean;
}

/**
 * The keyGen outcome of a seeded key pair (ML-DSA pk/sk, ML-KEM ek/dk), its fields named by `names`: the
 * secret key as the implementation gives it or, from one that keeps only the seed, the expected secret key
 * once the implementation confirms the seed expands to it (PKCS#8 seed+expanded consistency check).
 */
export function seededKeyGenOutcome(
  c: AcvpCase,
  names: { public: string; secret: string; seed: string },
  key: SeededKeyPair,
): CaseOutcome {
  const response: JsonObject = { tcId: c.test.tcId, [names.public]: upperHex(key.publicKey) };
  const fields = [names.public, names.secret];
  if (key.secretKey) {
    response[names.secret] = upperHex(key.secretKey);
    return compareResponse(c, response, fields);
  }
  const expected = typeof c.expected?.[names.secret] === 'string' ? (c.expected[names.secret] as string) : undefined;
  if (expected === undefined)
    return { status: 'failed', reason: `the vector files give no expected ${names.secret} for this case`, response };
  if (!key.secretMatches?.(Buffer.from(expected, 'hex'))) {
    return {
      status: 'failed',
      reason: `OpenSSL's expansion of ${names.seed} differs from the expected ${names.secret} (PKCS#8 seed+expanded consistency check)`,
      response,
    };
  }
  response[names.secret] = expected.toUpperCase(); // the value OpenSSL has just confirmed equal to its own
  return compareResponse(c, response, fields);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue((a as JsonObject)[k], (b as JsonObject)[k]));
  }
  return a === b;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 34 ? `${text.slice(0, 31)}..."` : text;
}
