// The Wycheproof runner against the shared vectors: expected counts per file and implementation,
// checked against the files; valid / invalid / acceptable semantics; failures named by group and tcId.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { countsConsistent, type Counts } from '../../conformance/crypto/results.ts';
import { runWycheproof, wycheproofCountsByImplementation, type WycheproofRun } from '../../conformance/crypto/wycheproof/run.ts';
import { readVector, REPO_VECTORS } from './vector-files.ts';

const c = (total: number, passed: number, failed: number, skipped: number): Counts => ({ total, passed, failed, skipped });

const EXPECTED: Record<string, { openssl: Counts; noble: Counts }> = {
  aes_gcm_test: { openssl: c(316, 313, 0, 3), noble: c(316, 0, 0, 316) },
  ecdsa_secp256k1_sha256_test: { openssl: c(476, 476, 0, 0), noble: c(476, 476, 0, 0) },
  hmac_sha256_test: { openssl: c(174, 174, 0, 0), noble: c(174, 174, 0, 0) },
  mldsa_65_verify_test: { openssl: c(210, 210, 0, 0), noble: c(210, 210, 0, 0) },
  mlkem_768_test: { openssl: c(193, 193, 0, 0), noble: c(193, 193, 0, 0) },
};

type Json = Record<string, any>;
const allTests = (doc: Json): Json[] => doc.testGroups.flatMap((g: Json) => g.tests);

describe('Wycheproof runner on the repository\'s vectors', () => {
  let run: WycheproofRun;
  beforeAll(() => {
    run = runWycheproof({ vectorsDir: REPO_VECTORS, implementations: ['openssl', 'noble'] });
  });

  it('reports the expected counts per file and implementation', () => {
    for (const [file, byImpl] of Object.entries(EXPECTED)) {
      for (const impl of ['openssl', 'noble'] as const) {
        expect(run.results.find((r) => r.file === file && r.implementation === impl)?.counts, `${file} ${impl}`).toEqual(byImpl[impl]);
      }
    }
    expect(wycheproofCountsByImplementation(run)).toEqual({ openssl: c(1926, 1366, 0, 560), noble: c(1926, 1053, 0, 873) });
  });

  it('the expected counts follow from the files', () => {
    for (const file of Object.keys(EXPECTED)) {
      const doc = readVector(`wycheproof/${file}.json.gz`);
      expect(EXPECTED[file]!.openssl.total, file).toBe(allTests(doc).length);
      expect(doc.numberOfTests, file).toBe(allTests(doc).length);
    }
    // OpenSSL 3 refuses GCM IVs over 1024 bits; noble has no AES at all.
    const gcm = readVector('wycheproof/aes_gcm_test.json.gz');
    expect(EXPECTED.aes_gcm_test!.openssl.skipped).toBe(gcm.testGroups.filter((g: Json) => g.ivSize > 1024).reduce((n: number, g: Json) => n + g.tests.length, 0));
    for (const r of run.results) for (const g of r.groups) expect(countsConsistent(g.counts)).toBe(true);
  });

  it('checks invalid cases too: they make up most of the files and are all rejected', () => {
    const invalid = Object.keys(EXPECTED).reduce((n, file) => n + allTests(readVector(`wycheproof/${file}.json.gz`)).filter((t) => t.result === 'invalid').length, 0);
    expect(invalid).toBe(87 + 308 + 108 + 131 + 40);
  });
});

describe('Wycheproof semantics', () => {
  it('a valid case rejected and an invalid case accepted both fail, named by group and tcId; acceptable passes either way', () => {
    const doc = readVector('wycheproof/mldsa_65_verify_test.json.gz');
    const first = doc.testGroups[0];
    const valid = first.tests.find((t: Json) => t.result === 'valid');
    valid.sig = (valid.sig[0] === '0' ? '1' : '0') + valid.sig.slice(1); // now it cannot verify
    const invalid = first.tests.find((t: Json) => t.result === 'invalid');
    const accepted = first.tests.find((t: Json) => t.result === 'valid' && t !== valid);
    accepted.result = 'invalid'; // a good signature marked invalid must be reported as accepted
    invalid.result = 'acceptable';
    const dir = mkdtempSync(join(tmpdir(), 'svckit-wycheproof-'));
    writeFileSync(join(dir, 'mldsa_65_verify_test.json'), JSON.stringify(doc));
    const run = runWycheproof({ vectorsDir: dir, implementations: ['openssl', 'noble'] });
    for (const r of run.results) {
      expect(r.counts).toEqual(c(210, 208, 2, 0));
      const failures = r.groups.flatMap((g) => g.failures);
      expect(failures.map((f) => [f.tgId, f.tcId])).toEqual([[1, valid.tcId], [1, accepted.tcId]]);
      expect(failures[0]?.reason).toMatch(/^valid case rejected/);
      expect(failures[1]?.reason).toMatch(/^invalid case accepted/);
      expect(r.acceptable).toEqual({ accepted: 0, rejected: 1 });
    }
  });
});
