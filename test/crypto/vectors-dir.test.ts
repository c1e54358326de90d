// The vectors the repository carries (vectors/): every file listed in SHA256SUMS with its digest, the
// licences and provenance beside them, and the filter that wrote them reproducible from upstream files.
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkSha256Sums, readJsonFile, walkDirectories } from '../../conformance/crypto/vectors.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import {
  ACVP_SETS,
  type AcvpDocument,
  type AcvpGroup,
  filterAcvpFile,
  projectionGaps,
  WYCHEPROOF_FILES,
} from '../../scripts/filter-vectors.ts';
import { FULL_VECTORS, HAS_FULL_VECTORS, REPO_VECTORS } from './vector-files.ts';

const vectorFiles = (root: string) =>
  walkDirectories(root)
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.json.gz'))
        .map((f) => join(dir, f)),
    )
    .sort();

/** An ACVP file that carries test groups (prompt, expectedResults, internalProjection). */
type GroupedFile = AcvpDocument & { testGroups: AcvpGroup[] };

/** A file of the keyGen fixture (NIST's ML-DSA keyGen set, one case per parameter set), parsed. */
const readKeyGenFixture = (kind: 'prompt' | 'expectedResults') =>
  readJsonFile(
    new URL(`./fixtures/acvp-full/ML-DSA-keyGen-FIPS204/${kind}.json`, import.meta.url).pathname,
  ) as GroupedFile;

describe('vectors/', () => {
  it('every vector file matches SHA256SUMS, and SHA256SUMS lists nothing else', () => {
    const files = vectorFiles(REPO_VECTORS);
    const report = checkSha256Sums(REPO_VECTORS, files);
    expect(report.sumsFile).toBe(join(REPO_VECTORS, 'SHA256SUMS'));
    expect(report.mismatched).toEqual([]);
    expect(report.unlisted).toEqual([]);
    expect(report.matched).toHaveLength(files.length);
    const listed = readFileSync(join(REPO_VECTORS, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.replace(/^[0-9a-f]{64} {2}\.\//, ''));
    expect(listed.sort()).toEqual(files.map((f) => relative(REPO_VECTORS, f)).sort());
  });

  it('holds the eight ACVP sets and the ten Wycheproof files, with licences and provenance', () => {
    expect(readdirSync(join(REPO_VECTORS, 'acvp')).sort()).toEqual(Object.keys(ACVP_SETS).sort());
    expect(readdirSync(join(REPO_VECTORS, 'wycheproof')).sort()).toEqual(
      WYCHEPROOF_FILES.map((f) => `${f}.json.gz`).sort(),
    );
    expect(readFileSync(join(REPO_VECTORS, 'LICENSE.wycheproof'), 'utf8')).toMatch(
      /^\s+Apache License\s+Version 2\.0, January 2004/,
    );
    expect(readFileSync(join(REPO_VECTORS, 'NOTICE'), 'utf8')).toContain('not subject to copyright');
    const readme = readFileSync(join(REPO_VECTORS, 'README.md'), 'utf8');
    for (const text of [
      'v1.1.0.43',
      'dac1dd4729fd1f8dd9e1e9f3dce51d783da6c166',
      'Apache-2.0',
      'public domain',
      'scripts/filter-vectors.ts',
    ])
      expect(readme).toContain(text);
  });

  it('the filter keeps one parameter set across prompt, expectedResults, registration and validation', () => {
    const prompt = readKeyGenFixture('prompt');
    const expected = readKeyGenFixture('expectedResults');
    const kept = {
      groups: new Set([2]),
      tests: new Set(prompt.testGroups[1]!.tests.map((t) => t.tcId)),
    };
    const filtered = filterAcvpFile('prompt', prompt, 'ML-DSA-65', kept);
    expect(filtered.testGroups).toEqual([prompt.testGroups[1]]);
    expect({ ...filtered, testGroups: undefined }).toEqual({ ...prompt, testGroups: undefined });
    expect(filterAcvpFile('expectedResults', expected, 'ML-DSA-65', kept).testGroups).toEqual([expected.testGroups[1]]);
    const registration = {
      vsId: 1,
      parameterSets: ['ML-DSA-44', 'ML-DSA-65'],
      capabilities: [{ parameterSets: ['ML-DSA-87', 'ML-DSA-65'], x: 1 }],
    };
    expect(filterAcvpFile('registration', registration, 'ML-DSA-65', kept)).toEqual({
      vsId: 1,
      parameterSets: ['ML-DSA-65'],
      capabilities: [{ parameterSets: ['ML-DSA-65'], x: 1 }],
    });
    const validation = {
      vsId: 1,
      disposition: 'passed',
      tests: [{ tcId: 1 }, ...[...kept.tests].map((tcId) => ({ tcId }))],
    };
    expect(filterAcvpFile('validation', validation, 'ML-DSA-65', kept).tests).toEqual(
      [...kept.tests].map((tcId) => ({ tcId })),
    );
  });

  it('carries internalProjection alone where it holds the prompt and the expected results, else prompt and expectedResults', () => {
    for (const set of Object.keys(ACVP_SETS)) {
      const has = (kind: string) => existsSync(join(REPO_VECTORS, 'acvp', set, `${kind}.json.gz`));
      expect([has('prompt'), has('expectedResults'), has('internalProjection')], set).toEqual(
        set === 'ML-DSA-sigGen-FIPS204' ? [true, true, false] : [false, false, true],
      );
      expect(has('registration') && has('validation'), set).toBe(true);
    }
  });

  it('internalProjection stands in for prompt and expectedResults only when it holds every field of both', () => {
    const prompt = readKeyGenFixture('prompt');
    const expected = readKeyGenFixture('expectedResults');
    const answers = new Map(expected.testGroups.flatMap((g) => g.tests.map((t) => [`${g.tgId}/${t.tcId}`, t])));
    const merged = (): GroupedFile => ({
      ...prompt,
      testGroups: prompt.testGroups.map((g) => ({
        ...g,
        tests: g.tests.map((t) => ({ ...t, ...answers.get(`${g.tgId}/${t.tcId}`), deferred: false })),
      })),
    });
    expect(projectionGaps(prompt, expected, merged())).toEqual([]);
    const noAnswer = merged();
    delete noAnswer.testGroups[1]!.tests[0]!.pk;
    expect(projectionGaps(prompt, expected, noAnswer)).toEqual([`tg2/tc${prompt.testGroups[1]!.tests[0]!.tcId}.pk`]);
    const otherInput = merged();
    otherInput.testGroups[0]!.tests[0]!.seed = '00';
    otherInput.testGroups[2]!.parameterSet = 'ML-DSA-65';
    expect(projectionGaps(prompt, expected, otherInput)).toEqual([
      `tg1/tc${prompt.testGroups[0]!.tests[0]!.tcId}.seed`,
      'tg3.parameterSet',
    ]);
    expect(projectionGaps(prompt, expected, { ...merged(), revision: 'other' })).toEqual(['prompt.revision']);
    const mct = { testGroups: [{ tgId: 1, tests: [{ tcId: 1, resultsArray: [{ md: 'AA' }] }] }] };
    const mctProjection = { testGroups: [{ tgId: 1, tests: [{ tcId: 1, resultsArray: [{ md: 'AA', outLen: 8 }] }] }] };
    expect(projectionGaps({ testGroups: [] }, mct, mctProjection)).toEqual([]);
    mctProjection.testGroups[0]!.tests[0]!.resultsArray[0]!.md = 'AB';
    expect(projectionGaps({ testGroups: [] }, mct, mctProjection)).toEqual(['tg1/tc1.resultsArray']);
  });

  it.skipIf(!HAS_FULL_VECTORS)(
    'the filter rewrites vectors/ byte for byte from the upstream files (skipped: ../shared/vectors is not beside this clone)',
    () => {
      // The two upstream Wycheproof files not provisioned in ../shared come from vectors/ itself.
      const out = mkdtempSync(join(tmpdir(), 'svckit-vectors-'));
      execFileSync(
        join(REPO_ROOT, 'node_modules/.bin/tsx'),
        [
          'scripts/filter-vectors.ts',
          '--acvp',
          join(FULL_VECTORS, 'acvp'),
          '--wycheproof',
          join(FULL_VECTORS, 'wycheproof'),
          '--wycheproof',
          join(REPO_VECTORS, 'wycheproof'),
          '--out',
          out,
        ],
        { cwd: REPO_ROOT, stdio: 'pipe' },
      );
      expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toBe(
        readFileSync(join(REPO_VECTORS, 'SHA256SUMS'), 'utf8'),
      );
      expect(existsSync(join(out, 'acvp', 'ML-DSA-sigGen-FIPS204', 'internalProjection.json.gz'))).toBe(false);
    },
    120_000,
  );
});
