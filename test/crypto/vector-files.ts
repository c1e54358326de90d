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

type Json = Record<string, any>;

/** A gzipped JSON file of the repository's vectors (or of `root`), parsed. */
export function readVector(relativePath: string, root = REPO_VECTORS): Json {
  return JSON.parse(gunzipSync(readFileSync(join(root, relativePath))).toString('utf8'));
}

/**
 * One file of an ACVP set. Where vectors/ carries internalProjection alone (it holds every prompt and
 * expectedResults field, D-132), the prompt and the expected results are read from it.
 */
export function acvpFile(
  set: string,
  kind: 'prompt' | 'expectedResults' | 'internalProjection',
  root = REPO_VECTORS,
): Json {
  const own = `acvp/${set}/${kind}.json.gz`;
  return readVector(existsSync(join(root, own)) ? own : `acvp/${set}/internalProjection.json.gz`, root);
}

/** The test groups of an ACVP set's prompt. */
export function promptGroups(set: string, root = REPO_VECTORS): Json[] {
  return acvpFile(set, 'prompt', root).testGroups;
}

/** Number of test cases in groups matching `keep`. */
export function countCases(groups: Json[], keep: (group: Json, test: Json) => boolean = () => true): number {
  return groups.reduce((n, g) => n + g.tests.filter((t: Json) => keep(g, t)).length, 0);
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
