// The Wycheproof runner against the shared vectors: expected counts per file and implementation,
// checked against the files; valid / invalid / acceptable semantics; failures named by group and tcId.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { countsConsistent, type Counts } from '../../conformance/crypto/results.ts';
import {
  runWycheproof,
  wycheproofCountsByImplementation,
  type WycheproofRun,
} from '../../conformance/crypto/wycheproof/run.ts';
import { REPO_VECTORS, type WycheproofCase, type WycheproofFile, wycheproofFile } from './vector-files.ts';

const c = (total: number, passed: number, failed: number, skipped: number): Counts => ({
  total,
  passed,
  failed,
  skipped,
});

const EXPECTED: Record<string, { openssl: Counts; noble: Counts }> = {
  aes_gcm_test: { openssl: c(316, 313, 0, 3), noble: c(316, 0, 0, 316) },
  ecdsa_secp256k1_sha256_test: { openssl: c(476, 476, 0, 0), noble: c(476, 476, 0, 0) },
  hmac_sha256_test: { openssl: c(174, 174, 0, 0), noble: c(174, 174, 0, 0) },
  mldsa_65_verify_test: { openssl: c(210, 210, 0, 0), noble: c(210, 210, 0, 0) },
  // OpenSSL through node:crypto signs only hedged with its own randomness: it refuses the three bad seed
  // lengths itself, and the deterministic, given-rnd and Sign_internal cases are skipped with the reason.
  mldsa_65_sign_seed_test: { openssl: c(105, 3, 0, 102), noble: c(105, 105, 0, 0) },
  mldsa_65_sign_noseed_test: { openssl: c(78, 0, 0, 78), noble: c(78, 78, 0, 0) },
  mlkem_768_test: { openssl: c(193, 193, 0, 0), noble: c(193, 193, 0, 0) },
  // Encaps_internal with a caller-supplied m is not offered by node:crypto.
  mlkem_768_encaps_test: { openssl: c(265, 0, 0, 265), noble: c(265, 265, 0, 0) },
  mlkem_768_keygen_seed_test: { openssl: c(100, 100, 0, 0), noble: c(100, 100, 0, 0) },
  mlkem_768_semi_expanded_decaps_test: { openssl: c(9, 9, 0, 0), noble: c(9, 9, 0, 0) },
};

const allTests = (doc: WycheproofFile): WycheproofCase[] => doc.testGroups.flatMap((g) => g.tests);

describe("Wycheproof runner on the repository's vectors", () => {
  let run: WycheproofRun;
  beforeAll(() => {
    run = runWycheproof({ vectorsDir: REPO_VECTORS, implementations: ['openssl', 'noble'] });
  });

  it('reports the expected counts per file and implementation', () => {
    for (const [file, byImpl] of Object.entries(EXPECTED)) {
      for (const impl of ['openssl', 'noble'] as const) {
        expect(
          run.results.find((r) => r.file === file && r.implementation === impl)?.counts,
          `${file} ${impl}`,
        ).toEqual(byImpl[impl]);
      }
    }
    expect(wycheproofCountsByImplementation(run)).toEqual({
      openssl: c(1926, 1478, 0, 448),
      noble: c(1926, 1610, 0, 316),
    });
    // Every test type of the files has a handler: nothing is skipped as "not implemented".
    const reasons = run.results.flatMap((r) => r.groups.flatMap((g) => Object.keys(g.skipReasons)));
    expect(reasons.filter((r) => r.includes('not implemented'))).toEqual([]);
  });

  it('the expected counts follow from the files', () => {
    for (const file of Object.keys(EXPECTED)) {
      const doc = wycheproofFile(file);
      expect(EXPECTED[file]!.openssl.total, file).toBe(allTests(doc).length);
      expect(doc.numberOfTests, file).toBe(allTests(doc).length);
    }
    // OpenSSL 3 refuses GCM IVs over 1024 bits; noble has no AES at all.
    const gcm = wycheproofFile('aes_gcm_test');
    expect(EXPECTED.aes_gcm_test!.openssl.skipped).toBe(
      gcm.testGroups.filter((g) => (g.ivSize ?? 0) > 1024).reduce((n, g) => n + g.tests.length, 0),
    );
    for (const r of run.results) for (const g of r.groups) expect(countsConsistent(g.counts)).toBe(true);
  });

  it('checks invalid cases too: they make up most of the files and are all rejected', () => {
    const invalid = Object.keys(EXPECTED).reduce(
      (n, file) => n + allTests(wycheproofFile(file)).filter((t) => t.result === 'invalid').length,
      0,
    );
    expect(invalid).toBe(87 + 308 + 108 + 131 + 40 + 4 + 5 + 132 + 0 + 6);
  });
});

describe('Wycheproof test types are read from the file, not its name', () => {
  it('runs a file it has never seen, of a known test type, and fails a key that must be refused when it is marked valid', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-wycheproof-types-'));
    const noseed = wycheproofFile('mldsa_65_sign_noseed_test');
    // The out-of-range private key (InvalidPrivateKey) must be refused: marked valid, it must fail.
    const badKey = allTests(noseed).find((t) => t.flags.includes('InvalidPrivateKey'))!;
    badKey.result = 'valid';
    writeFileSync(join(dir, 'vendor_signing_cases.json'), JSON.stringify(noseed));
    const decaps = wycheproofFile('mlkem_768_semi_expanded_decaps_test');
    writeFileSync(join(dir, 'kem_decaps_cases.json'), JSON.stringify(decaps));
    const run = runWycheproof({ vectorsDir: dir, implementations: ['openssl', 'noble'] });
    const by = (file: string, impl: string) => run.results.find((r) => r.file === file && r.implementation === impl);
    expect(by('vendor_signing_cases', 'noble')?.counts).toEqual(c(78, 77, 1, 0));
    expect(
      by('vendor_signing_cases', 'noble')
        ?.groups.flatMap((g) => g.failures)
        .map((f) => f.tcId),
    ).toEqual([badKey.tcId]);
    expect(by('kem_decaps_cases', 'openssl')?.counts).toEqual(c(9, 9, 0, 0));
    expect(by('kem_decaps_cases', 'noble')?.counts).toEqual(c(9, 9, 0, 0));
  });
});

describe('Wycheproof semantics', () => {
  it('a valid case rejected and an invalid case accepted both fail, named by group and tcId; acceptable passes either way', () => {
    const doc = wycheproofFile<WycheproofCase & { sig: string }>('mldsa_65_verify_test');
    const first = doc.testGroups[0]!;
    const valid = first.tests.find((t) => t.result === 'valid')!;
    valid.sig = (valid.sig[0] === '0' ? '1' : '0') + valid.sig.slice(1); // now it cannot verify
    const invalid = first.tests.find((t) => t.result === 'invalid')!;
    const accepted = first.tests.find((t) => t.result === 'valid' && t !== valid)!;
    accepted.result = 'invalid'; // a good signature marked invalid must be reported as accepted
    invalid.result = 'acceptable';
    const dir = mkdtempSync(join(tmpdir(), 'svckit-wycheproof-'));
    writeFileSync(join(dir, 'mldsa_65_verify_test.json'), JSON.stringify(doc));
    const run = runWycheproof({ vectorsDir: dir, implementations: ['openssl', 'noble'] });
    for (const r of run.results) {
      expect(r.counts).toEqual(c(210, 208, 2, 0));
      const failures = r.groups.flatMap((g) => g.failures);
      expect(failures.map((f) => [f.tgId, f.tcId])).toEqual([
        [1, valid.tcId],
        [1, accepted.tcId],
      ]);
      expect(failures[0]?.reason).toMatch(/^valid case rejected/);
      expect(failures[1]?.reason).toMatch(/^invalid case accepted/);
      expect(r.acceptable).toEqual({ accepted: 0, rejected: 1 });
    }
  });
});
