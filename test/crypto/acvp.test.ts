// The ACVP runner against the NIST vectors the repository carries (vectors/, filtered to ML-DSA-65 and
// ML-KEM-768, D-132): expected counts per set and implementation, checked against the vector files
// themselves; failures named by tgId and tcId; responses as an ACVP client submits them; full upstream
// files with other parameter sets; other layouts of the same format (plain, array-wrapped, group-level
// keys, tr1 key formats).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { acvpResultsFile, writeAcvpOutputs } from '../../conformance/crypto/acvp/output.ts';
import { acvpCountsByImplementation, runAcvp, type AcvpRun } from '../../conformance/crypto/acvp/run.ts';
import { countsConsistent, type Counts } from '../../conformance/crypto/results.ts';
import {
  type AcvpCase,
  type AcvpGroup,
  acvpFile,
  countCases,
  FULL_VECTORS,
  HAS_FULL_VECTORS,
  promptGroups,
  REPO_VECTORS,
  WEAK_PREHASHES,
} from './vector-files.ts';
import { writeAlteredSet, writeGroupLevelKeySet, writeTr1Fixtures } from './acvp-fixtures.ts';

const c = (total: number, passed: number, failed: number, skipped: number): Counts => ({
  total,
  passed,
  failed,
  skipped,
});

// Computed once from a run and checked below against the vector files (see "follow from the files").
const EXPECTED: Record<string, { openssl: Counts; noble: Counts }> = {
  'ACVP-AES-GCM-1.0': { openssl: c(60, 60, 0, 0), noble: c(60, 0, 0, 60) },
  'HMAC-SHA2-256-2.0': { openssl: c(150, 150, 0, 0), noble: c(150, 150, 0, 0) },
  'ML-DSA-keyGen-FIPS204': { openssl: c(25, 25, 0, 0), noble: c(25, 25, 0, 0) },
  'ML-DSA-sigGen-FIPS204': { openssl: c(120, 0, 0, 120), noble: c(120, 103, 0, 17) },
  'ML-DSA-sigVer-FIPS204': { openssl: c(60, 15, 0, 45), noble: c(60, 51, 0, 9) },
  'ML-KEM-encapDecap-FIPS203': { openssl: c(55, 30, 0, 25), noble: c(55, 55, 0, 0) },
  'ML-KEM-keyGen-FIPS203': { openssl: c(25, 25, 0, 0), noble: c(25, 25, 0, 0) },
  'SHA3-256-2.0': { openssl: c(1199, 152, 0, 1047), noble: c(1199, 1195, 0, 4) },
};

describe("ACVP runner on the repository's vectors", () => {
  let run: AcvpRun;
  const counts = (set: string, impl: 'openssl' | 'noble') =>
    run.results.find((r) => r.set === set && r.implementation === impl)?.counts;

  beforeAll(() => {
    run = runAcvp({ vectorsDir: REPO_VECTORS, implementations: ['openssl', 'noble'] });
  });

  it('finds the eight sets and every file matches SHA256SUMS', () => {
    expect(run.sources.map((s) => s.set).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(run.checksums.sumsFile).toBe(join(REPO_VECTORS, 'SHA256SUMS'));
    // The files the runner reads: internalProjection in seven sets, prompt and expectedResults in sigGen.
    expect(run.checksums.matched).toHaveLength(9);
    expect(run.checksums.mismatched).toEqual([]);
  });

  it('reports the expected counts per set and implementation', () => {
    for (const [set, byImpl] of Object.entries(EXPECTED)) {
      expect(counts(set, 'openssl'), `${set} openssl`).toEqual(byImpl.openssl);
      expect(counts(set, 'noble'), `${set} noble`).toEqual(byImpl.noble);
    }
    expect(acvpCountsByImplementation(run)).toEqual({ openssl: c(1694, 457, 0, 1237), noble: c(1694, 1604, 0, 90) });
  });

  it('the expected counts follow from the vector files themselves', () => {
    const inScope = (g: AcvpGroup) => g.parameterSet === 'ML-DSA-65' || g.parameterSet === 'ML-KEM-768';
    for (const [set, byImpl] of Object.entries(EXPECTED)) {
      const total = countCases(promptGroups(set));
      expect(byImpl.openssl.total, set).toBe(total);
      expect(byImpl.noble.total, set).toBe(total);
    }
    // Only the in-scope parameter sets are carried (vectors/README.md, D-132).
    for (const set of [
      'ML-DSA-keyGen-FIPS204',
      'ML-DSA-sigGen-FIPS204',
      'ML-DSA-sigVer-FIPS204',
      'ML-KEM-keyGen-FIPS203',
      'ML-KEM-encapDecap-FIPS203',
    ]) {
      expect(
        promptGroups(set).filter((g) => !inScope(g)),
        set,
      ).toEqual([]);
    }
    const dsa65 = (set: string) => promptGroups(set).filter((g) => g.parameterSet === 'ML-DSA-65');
    const weak = (g: AcvpGroup, t: AcvpCase) =>
      g.preHash === 'preHash' && WEAK_PREHASHES.has(t.hashAlg ?? g.hashAlg ?? '');
    // A length in bits that is whole bytes (an absent length is not).
    const wholeBytes = (bits: number | undefined) => bits !== undefined && bits % 8 === 0;
    expect(EXPECTED['ML-DSA-keyGen-FIPS204']!.openssl.passed).toBe(countCases(dsa65('ML-DSA-keyGen-FIPS204')));
    // noble offers every interface; it refuses only the pre-hashes weaker than λ = 192.
    expect(EXPECTED['ML-DSA-sigGen-FIPS204']!.noble.passed).toBe(
      countCases(dsa65('ML-DSA-sigGen-FIPS204'), (g, t) => !weak(g, t)),
    );
    expect(EXPECTED['ML-DSA-sigVer-FIPS204']!.noble.passed).toBe(
      countCases(dsa65('ML-DSA-sigVer-FIPS204'), (g, t) => !weak(g, t)),
    );
    // OpenSSL through node:crypto: external pure verification only; no rnd or deterministic signing.
    expect(EXPECTED['ML-DSA-sigVer-FIPS204']!.openssl.passed).toBe(
      countCases(dsa65('ML-DSA-sigVer-FIPS204'), (g) => g.signatureInterface === 'external' && g.preHash === 'pure'),
    );
    const kem768 = promptGroups('ML-KEM-encapDecap-FIPS203').filter((g) => g.parameterSet === 'ML-KEM-768');
    expect(EXPECTED['ML-KEM-encapDecap-FIPS203']!.noble.passed).toBe(countCases(kem768));
    expect(EXPECTED['ML-KEM-encapDecap-FIPS203']!.openssl.passed).toBe(
      countCases(kem768, (g) => g.function !== 'encapsulation'),
    );
    const sha3 = promptGroups('SHA3-256-2.0');
    const aft = sha3.filter((g) => g.testType === 'AFT');
    expect(EXPECTED['SHA3-256-2.0']!.openssl.passed).toBe(
      countCases(aft, (_g, t) => wholeBytes(t.len)) + countCases(sha3.filter((g) => g.testType === 'MCT')),
    );
    expect(EXPECTED['SHA3-256-2.0']!.noble.skipped).toBe(countCases(sha3.filter((g) => g.testType === 'LDT')));
    expect(EXPECTED['HMAC-SHA2-256-2.0']!.noble.passed).toBe(
      countCases(promptGroups('HMAC-SHA2-256-2.0'), (_g, t) => wholeBytes(t.msgLen) && wholeBytes(t.keyLen)),
    );
  });

  it('never counts a skipped case as a pass, and names the reason of every skip', () => {
    for (const r of run.results) {
      expect(countsConsistent(r.counts)).toBe(true);
      for (const g of r.groups) {
        expect(countsConsistent(g.counts)).toBe(true);
        expect(Object.values(g.skipReasons).reduce((a, b) => a + b, 0)).toBe(g.counts.skipped);
      }
    }
    const reasons = Object.keys(acvpResultsFile(run, 'x').summary.skipReasons);
    expect(reasons).toContain(
      'the internal interface (ML-DSA.Sign_internal, external mu) is not offered by OpenSSL through node:crypto',
    );
    expect(reasons).toContain(
      'pre-hash SHA2-256 refused by @noble/post-quantum: collision strength 128 bits is below λ = 192',
    );
    expect(reasons).toContain('large data tests (1 to 8 GiB each) are run only with --large-data');
  });

  it('writes the responses an ACVP client submits, with the expected values', async () => {
    const out = mkdtempSync(join(tmpdir(), 'svckit-acvp-'));
    await writeAcvpOutputs(run, out, 'npx svckit acvp');
    const response = JSON.parse(
      readFileSync(join(out, 'responses', 'noble', 'ML-KEM-encapDecap-FIPS203.json'), 'utf8'),
    );
    expect(response[0]).toEqual({ acvVersion: '1.0' });
    expect(response[1]).toMatchObject({ algorithm: 'ML-KEM', mode: 'encapDecap', revision: 'FIPS203' });
    const expected = acvpFile('ML-KEM-encapDecap-FIPS203', 'expectedResults');
    const encaps = response[1].testGroups.find((g: { tgId: number }) => g.tgId === 2);
    const expectedEncaps = expected.testGroups.find((g) => g.tgId === 2)!;
    expect(encaps.tests).toHaveLength(25);
    expect(encaps.tests.map((t: Record<string, unknown>) => [t.tcId, t.c, t.k])).toEqual(
      expectedEncaps.tests.map((t) => [t.tcId, t.c, t.k]),
    );
    // OpenSSL answers no encapsulation (no caller-supplied m), so its response has no tgId 2.
    const opensslResponse = JSON.parse(
      readFileSync(join(out, 'responses', 'openssl', 'ML-KEM-encapDecap-FIPS203.json'), 'utf8'),
    );
    expect(opensslResponse[1].testGroups.map((g: { tgId: number }) => g.tgId)).toEqual([5, 9, 10]);
    const results = JSON.parse(readFileSync(join(out, 'acvp-results.json'), 'utf8'));
    expect(results.kind).toBe('svckit.acvp-results');
    expect(results.summary.total).toEqual(c(3388, 2061, 0, 1327));
  });
});

describe('ACVP runner on full upstream files (--vectors DIR)', () => {
  // One test group per parameter set of NIST's ML-DSA keyGen set, one case each, as published.
  const FIXTURE = new URL('./fixtures/acvp-full/', import.meta.url).pathname;
  const OUT_OF_SCOPE = 'parameter set ML-DSA-87 is out of scope (svckit implements ML-DSA-65 and ML-KEM-768)';

  it('counts the parameter sets svckit does not implement as skipped, with the reason, never as passed', () => {
    const run = runAcvp({ vectorsDir: FIXTURE, implementations: ['openssl', 'noble'] });
    for (const r of run.results) {
      expect(r.counts).toEqual(c(3, 1, 0, 2));
      expect(r.groups.map((g) => [g.description, g.counts.passed, Object.keys(g.skipReasons)])).toEqual([
        ['ML-DSA-44 AFT', 0, ['parameter set ML-DSA-44 is out of scope (svckit implements ML-DSA-65 and ML-KEM-768)']],
        ['ML-DSA-65 AFT', 1, []],
        ['ML-DSA-87 AFT', 0, [OUT_OF_SCOPE]],
      ]);
    }
  });

  it.skipIf(!HAS_FULL_VECTORS)(
    `runs the full upstream sets, the other parameter sets skipped (skipped: ../shared/vectors is not beside this clone)`,
    () => {
      const run = runAcvp({ vectorsDir: FULL_VECTORS, implementations: ['openssl', 'noble'] });
      // The in-scope passes are those of the repository's files; the rest of the upstream cases are skipped.
      expect(acvpCountsByImplementation(run)).toEqual({ openssl: c(2264, 457, 0, 1807), noble: c(2264, 1604, 0, 660) });
      expect(Object.keys(acvpResultsFile(run, 'x').summary.skipReasons)).toContain(OUT_OF_SCOPE);
    },
  );
});

describe('ACVP runner failures and other layouts of the format', () => {
  it.each(['expectedResults', 'internalProjection'] as const)(
    'names tgId and tcId of a case whose expected value is wrong (in %s)',
    (into) => {
      const dir = writeAlteredSet(
        'ML-DSA-keyGen-FIPS204',
        (expected) => {
          const test = expected.testGroups.find((g) => g.tgId === 2)!.tests[3]!;
          const pk = test.pk!;
          test.pk = (pk[0] === '0' ? '1' : '0') + pk.slice(1);
          return { tgId: 2, tcId: test.tcId };
        },
        into,
      );
      const run = runAcvp({ vectorsDir: dir.path, implementations: ['openssl', 'noble'] });
      expect(run.results).toHaveLength(2);
      for (const r of run.results) {
        expect(r.counts).toEqual(c(25, 24, 1, 0));
        const failures = r.groups.flatMap((g) => g.failures);
        expect(failures).toHaveLength(1);
        expect(failures[0]).toMatchObject({ tgId: 2, tcId: dir.altered.tcId });
        expect(failures[0]?.reason).toMatch(/^pk: expected/);
      }
    },
  );

  it('reads plain JSON, the [{acvVersion}, {...}] wrapper and keys at group level', () => {
    const dir = writeGroupLevelKeySet();
    const run = runAcvp({ vectorsDir: dir, implementations: ['openssl', 'noble'] });
    for (const r of run.results) expect(r.counts).toEqual(c(10, 10, 0, 0));
  });

  it('runs FIPS203-tr1 and FIPS204-tr1 groups that give the key as a seed or expanded (keyFormat)', async () => {
    const dir = await writeTr1Fixtures();
    const run = runAcvp({ vectorsDir: dir, implementations: ['openssl', 'noble'] });
    const by = (set: string, impl: string) => run.results.find((r) => r.set === set && r.implementation === impl);
    // decapsulation with seed and with expanded keys: both implementations; the expected keys come from liboqs.
    expect(by('ML-KEM-encapDecap-FIPS203-tr1', 'openssl')?.counts).toEqual(c(8, 8, 0, 0));
    expect(by('ML-KEM-encapDecap-FIPS203-tr1', 'noble')?.counts).toEqual(c(8, 8, 0, 0));
    // deterministic signing from a seed equals signing with NIST's expanded key for that seed.
    expect(by('ML-DSA-sigGen-FIPS204-tr1', 'noble')?.counts).toEqual(c(6, 6, 0, 0));
    expect(by('ML-DSA-sigGen-FIPS204-tr1', 'openssl')?.counts).toEqual(c(6, 0, 0, 6));
    expect(by('ML-DSA-sigGen-FIPS204-tr1', 'noble')?.groups.map((g) => g.description)).toEqual([
      'ML-DSA-65 external pure deterministic seed key',
      'ML-DSA-65 external pure deterministic expanded key',
    ]);
  });
});
