// Independent reading of the shared vector files for the tests: plain zlib + JSON, none of the
// runner's code, so the counts the runners report can be checked against the files themselves.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The shared vectors: ../shared/vectors from the repository root (never copied into the repo). */
export const SHARED_VECTORS = resolve(new URL('../../', import.meta.url).pathname, '../shared/vectors');

// The vector tests fail, rather than skip, without the shared vectors: a skipped run proves nothing.
if (!existsSync(join(SHARED_VECTORS, 'acvp')) || !existsSync(join(SHARED_VECTORS, 'wycheproof'))) {
  throw new Error(`the shared test vectors are missing: expected ${SHARED_VECTORS}/acvp and /wycheproof (see DESIGN.md, "Test vectors")`);
}

type Json = Record<string, any>;

/** A gzipped JSON file of the shared vectors, parsed. */
export function readVector(relativePath: string): Json {
  return JSON.parse(gunzipSync(readFileSync(join(SHARED_VECTORS, relativePath))).toString('utf8'));
}

/** The test groups of an ACVP set's prompt. */
export function promptGroups(set: string): Json[] {
  return readVector(`acvp/${set}/prompt.json.gz`).testGroups;
}

/** Number of test cases in groups matching `keep`. */
export function countCases(groups: Json[], keep: (group: Json, test: Json) => boolean = () => true): number {
  return groups.reduce((n, g) => n + g.tests.filter((t: Json) => keep(g, t)).length, 0);
}

/** Pre-hashes whose collision strength is below ML-DSA-65's λ = 192 bits (output under 384 bits). */
export const WEAK_PREHASHES = new Set(['SHA2-224', 'SHA2-256', 'SHA2-512/224', 'SHA2-512/256', 'SHA3-224', 'SHA3-256', 'SHAKE-128']);
