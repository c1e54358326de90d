/**
 * Writes the repository's vectors/ from upstream files, so their provenance can be reproduced:
 *
 *   npx tsx scripts/filter-vectors.ts --acvp <ACVP-Server gen-val/json-files or a copy> \
 *     --wycheproof <C2SP testvectors_v1> [--wycheproof <another folder>] --out vectors
 *
 * D-132. ACVP: the in-scope sets are copied; in the ML-DSA and ML-KEM sets the test groups of parameter sets
 * svckit does not implement (anything but ML-DSA-65 and ML-KEM-768) are dropped, consistently in
 * prompt, expectedResults, internalProjection, registration and validation. Every other field is kept as
 * parsed JSON. Files that need no filtering are copied byte for byte. Wycheproof: the in-scope files are
 * copied as they are (a plain .json is gzipped). Upstream files may be plain or gzipped.
 * Where upstream publishes internalProjection and it holds every field of prompt and expectedResults
 * (checked here, field by field), only internalProjection is carried: the other two repeat it.
 * The output is written gzipped, two-space indented like upstream, then SHA256SUMS is written.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { readMaybeGzip, sha256File, walkDirectories } from '../conformance/crypto/vectors.ts';

/** The ACVP sets carried, with the parameter set kept in each (undefined: the set is kept whole). */
export const ACVP_SETS: Readonly<Record<string, string | undefined>> = {
  'ML-DSA-keyGen-FIPS204': 'ML-DSA-65',
  'ML-DSA-sigGen-FIPS204': 'ML-DSA-65',
  'ML-DSA-sigVer-FIPS204': 'ML-DSA-65',
  'ML-KEM-keyGen-FIPS203': 'ML-KEM-768',
  'ML-KEM-encapDecap-FIPS203': 'ML-KEM-768',
  'HMAC-SHA2-256-2.0': undefined,
  'ACVP-AES-GCM-1.0': undefined,
  'SHA3-256-2.0': undefined,
};

/** The Wycheproof files carried (names without .json / .json.gz). */
export const WYCHEPROOF_FILES: readonly string[] = [
  'aes_gcm_test',
  'ecdsa_secp256k1_sha256_test',
  'hmac_sha256_test',
  'mldsa_65_sign_noseed_test',
  'mldsa_65_sign_seed_test',
  'mldsa_65_verify_test',
  'mlkem_768_encaps_test',
  'mlkem_768_keygen_seed_test',
  'mlkem_768_semi_expanded_decaps_test',
  'mlkem_768_test',
];

/** A parsed JSON object of an ACVP file: the fields named are those the filter reads, every other is kept as parsed. */
type JsonObject = { [field: string]: unknown };

/** A test case, keyed by tcId (unique across a vector set). */
export interface AcvpTest extends JsonObject {
  tcId: number;
}

/** A test group, keyed by tgId, with its parameter set and cases. */
export interface AcvpGroup extends JsonObject {
  tgId: number;
  parameterSet?: string;
  tests: AcvpTest[];
}

/**
 * One ACVP file: prompt, expectedResults and internalProjection carry testGroups, validation carries tests,
 * registration carries parameterSets and capabilities.
 */
export interface AcvpDocument extends JsonObject {
  testGroups?: AcvpGroup[];
  tests?: AcvpTest[];
  parameterSets?: unknown;
  capabilities?: unknown;
}

/** The test groups of a prompt, expectedResults or internalProjection file. */
function groupsOf(doc: AcvpDocument): AcvpGroup[] {
  if (!Array.isArray(doc.testGroups)) throw new Error('an ACVP file without "testGroups"');
  return doc.testGroups;
}

/** The file `<dir>/<name>.json.gz` or `<dir>/<name>.json`, if present. */
function find(dir: string, name: string): string | undefined {
  return [`${name}.json.gz`, `${name}.json`].map((f) => join(dir, f)).find((p) => existsSync(p));
}

/** Drops the test groups (and registration entries) of other parameter sets from one ACVP file. */
export function filterAcvpFile(
  kind: string,
  doc: AcvpDocument,
  keep: string,
  kept: { groups: Set<number>; tests: Set<number> },
): AcvpDocument {
  if (kind === 'registration') {
    const trim = (o: JsonObject): JsonObject =>
      Array.isArray(o.parameterSets) ? { ...o, parameterSets: o.parameterSets.filter((p) => p === keep) } : o;
    const out = trim(doc);
    return Array.isArray(out.capabilities) ? { ...out, capabilities: out.capabilities.map(trim) } : out;
  }
  // validation.json lists the cases by tcId only (tcIds are unique across a vector set).
  if (kind === 'validation') return { ...doc, tests: doc.tests!.filter((t) => kept.tests.has(t.tcId)) };
  return { ...doc, testGroups: groupsOf(doc).filter((g) => kept.groups.has(g.tgId)) };
}

/**
 * The differences that keep internalProjection from standing in for prompt and expectedResults: every
 * top-level field, group field and test field of both must appear in it with the same value (an
 * expected `resultsArray` entry may gain fields). Empty when it stands in for both.
 */
export function projectionGaps(prompt: AcvpDocument, expected: AcvpDocument, projection: AcvpDocument): string[] {
  const gaps: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const covers = (want: JsonObject, have: JsonObject | undefined, where: string, skip: string[]) => {
    for (const [key, value] of Object.entries(want)) {
      if (skip.includes(key)) continue;
      const got = have?.[key];
      const ok =
        key === 'resultsArray' && Array.isArray(value) && Array.isArray(got)
          ? value.length === got.length &&
            value.every((entry: JsonObject, i: number) => Object.entries(entry).every(([k, v]) => same(v, got[i]?.[k])))
          : same(value, got);
      if (!ok) gaps.push(`${where}.${key}`);
    }
  };
  covers(prompt, projection, 'prompt', ['testGroups']);
  const groups = new Map(groupsOf(projection).map((g) => [g.tgId, g]));
  for (const doc of [prompt, expected]) {
    for (const group of groupsOf(doc)) {
      const into = groups.get(group.tgId);
      covers(group, into, `tg${group.tgId}`, ['tests']);
      const tests = new Map((into?.tests ?? []).map((t) => [t.tcId, t]));
      for (const test of group.tests ?? []) covers(test, tests.get(test.tcId), `tg${group.tgId}/tc${test.tcId}`, []);
    }
  }
  return gaps;
}

function writeGzipJson(path: string, doc: unknown): void {
  writeFileSync(path, gzipSync(`${JSON.stringify(doc, null, 2)}`, { level: 9 }));
}

function readJson(path: string): AcvpDocument {
  return JSON.parse(readMaybeGzip(path).toString('utf8')) as AcvpDocument;
}

function copyAcvpSet(from: string, to: string, keep: string | undefined): void {
  mkdirSync(to, { recursive: true });
  const prompt = readJson(find(from, 'prompt')!);
  const inScope = groupsOf(prompt).filter((g) => keep === undefined || g.parameterSet === keep);
  const kept = {
    groups: new Set(inScope.map((g) => g.tgId)),
    tests: new Set(inScope.flatMap((g) => g.tests.map((t) => t.tcId))),
  };
  const docs = new Map<string, AcvpDocument>();
  for (const kind of ['prompt', 'expectedResults', 'internalProjection', 'registration', 'validation']) {
    const path = find(from, kind);
    if (path) docs.set(kind, keep === undefined ? readJson(path) : filterAcvpFile(kind, readJson(path), keep, kept));
  }
  const projection = docs.get('internalProjection');
  const expected = docs.get('expectedResults');
  if (projection && expected) {
    const gaps = projectionGaps(docs.get('prompt')!, expected, projection);
    if (gaps.length > 0) throw new Error(`${from}: internalProjection lacks ${gaps.slice(0, 5).join(', ')}`);
    docs.delete('prompt');
    docs.delete('expectedResults');
  }
  for (const [kind, doc] of docs) {
    const path = find(from, kind)!;
    // Unfiltered sets keep upstream's bytes.
    if (keep === undefined)
      writeFileSync(
        join(to, `${kind}.json.gz`),
        path.endsWith('.gz') ? readFileSync(path) : gzipSync(readFileSync(path), { level: 9 }),
      );
    else writeGzipJson(join(to, `${kind}.json.gz`), doc);
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      acvp: { type: 'string' },
      wycheproof: { type: 'string', multiple: true },
      out: { type: 'string', default: 'vectors' },
    },
  });
  if (!values.acvp || !values.wycheproof?.length) {
    console.error(
      'usage: tsx scripts/filter-vectors.ts --acvp <dir> --wycheproof <dir> [--wycheproof <dir>] [--out vectors]',
    );
    process.exit(2);
  }
  const out = values.out;
  for (const [set, keep] of Object.entries(ACVP_SETS)) {
    const from = join(values.acvp, set);
    if (!existsSync(from)) throw new Error(`ACVP set ${set} not found under ${values.acvp}`);
    copyAcvpSet(from, join(out, 'acvp', set), keep);
  }
  mkdirSync(join(out, 'wycheproof'), { recursive: true });
  for (const name of WYCHEPROOF_FILES) {
    const path = values.wycheproof.map((dir) => find(dir, name)).find(Boolean);
    if (!path) throw new Error(`Wycheproof file ${name} not found under ${values.wycheproof.join(', ')}`);
    const target = join(out, 'wycheproof', `${name}.json.gz`);
    if (path.endsWith('.gz')) copyFileSync(path, target);
    else writeFileSync(target, gzipSync(readFileSync(path), { level: 9 }));
  }
  const files = walkDirectories(out)
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.json.gz'))
        .map((f) => join(dir, f)),
    )
    .sort();
  writeFileSync(join(out, 'SHA256SUMS'), files.map((f) => `${sha256File(f)}  ./${relative(out, f)}\n`).join(''));
  console.log(`wrote ${files.length} files and SHA256SUMS under ${out}`);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
