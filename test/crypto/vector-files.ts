// Independent reading of the repository's vector files for the tests: plain zlib + JSON, none of the
// runner's code, so the counts the runners report can be checked against the files themselves.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoPath } from '../../src/paths.ts';

/** The vectors the repository carries (vectors/README.md gives their provenance). */
export const REPO_VECTORS = repoPath('vectors');

/** The full upstream vectors provisioned beside a development checkout, when present (never in a user's clone). */
export const FULL_VECTORS = repoPath('../shared/vectors');

/** True when the full upstream vectors are beside this clone. */
export const HAS_FULL_VECTORS = existsSync(join(FULL_VECTORS, 'acvp')) && existsSync(join(FULL_VECTORS, 'wycheproof'));

/** The fields of an ACVP test case the tests read (upstream's hex strings, bit lengths and ids). */
export interface AcvpCase {
  tcId: number;
  /** SHA-3 and HMAC message and key lengths, in bits. */
  len?: number;
  msgLen?: number;
  keyLen?: number;
  /** ML-DSA pre-hash function of a case (else of its group). */
  hashAlg?: string;
  /** Keys, seeds, ciphertexts and shared secrets, as upper-case hex. */
  seed?: string;
  sk?: string;
  pk?: string;
  dk?: string;
  c?: string;
  k?: string;
}

/** The fields of an ACVP test group the tests read. */
export interface AcvpGroup {
  tgId: number;
  testType?: string;
  parameterSet?: string;
  function?: string;
  preHash?: string;
  hashAlg?: string;
  signatureInterface?: string;
  tests: AcvpCase[];
}

/** An ACVP prompt, expectedResults or internalProjection file, as far as the tests read it. */
export interface AcvpFile {
  testGroups: AcvpGroup[];
}

/** The fields of a Wycheproof test case the tests read. */
export interface WycheproofCase {
  tcId: number;
  result: 'valid' | 'invalid' | 'acceptable';
  flags: string[];
}

/** A Wycheproof file, as far as the tests read it; `Case` adds the fields of one file's test type. */
export interface WycheproofFile<Case extends WycheproofCase = WycheproofCase> {
  numberOfTests: number;
  testGroups: { ivSize?: number; tests: Case[] }[];
}

/** A gzipped JSON file of the repository's vectors (or of `root`), parsed. */
function readVector(relativePath: string, root = REPO_VECTORS): unknown {
  return JSON.parse(gunzipSync(readFileSync(join(root, relativePath))).toString('utf8'));
}

/** A Wycheproof file of the repository's vectors, by name (without .json.gz). */
export function wycheproofFile<Case extends WycheproofCase = WycheproofCase>(name: string): WycheproofFile<Case> {
  return readVector(`wycheproof/${name}.json.gz`) as WycheproofFile<Case>;
}

/**
 * One file of an ACVP set. Where vectors/ carries internalProjection alone (it holds every prompt and
 * expectedResults field, D-132), the prompt and the expected results are read from it.
 */
export function acvpFile(
  set: string,
  kind: 'prompt' | 'expectedResults' | 'internalProjection',
  root = REPO_VECTORS,
): AcvpFile {
  const own = `acvp/${set}/${kind}.json.gz`;
  return readVector(existsSync(join(root, own)) ? own : `acvp/${set}/internalProjection.json.gz`, root) as AcvpFile;
}

/** The test groups of an ACVP set's prompt. */
export function promptGroups(set: string, root = REPO_VECTORS): AcvpGroup[] {
  return acvpFile(set, 'prompt', root).testGroups;
}

/** Number of test cases in groups matching `keep`. */
export function countCases(
  groups: AcvpGroup[],
  keep: (group: AcvpGroup, test: AcvpCase) => boolean = () => true,
): number {
  return groups.reduce((n, g) => n + g.tests.filter((t) => keep(g, t)).length, 0);
}

/** Pre-hashes whose collision strength is below ML-DSA-65's λ = 192 bits (output under 384 bits). */
export const WEAK_PREHASHES = new Set([
  'SHA2-224',
  'SHA2-256',
  'SHA2-512/224',
  'SHA2-512/256',
  'SHA3-224',
  'SHA3-256',
  'SHAKE-128',
]);
