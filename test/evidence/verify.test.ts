// `svckit evidence verify` rejects hand-made invalid documents, one per rule, naming each violation;
// a stale `generated` makes a document unverified (D-045: 30 days, an option).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { verifyEvidence, type EvidenceRule } from '../../src/evidence/verify.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { type EvidenceExample, editedExample } from './example.ts';

const now = new Date('2026-11-21T12:00:00.000Z');

/** The schema's example, generated now, changed by `edit`. */
const document = (edit: (doc: EvidenceExample) => void = () => {}) =>
  editedExample((doc) => {
    doc.generated = now.toISOString();
    edit(doc);
  });
const rules = (doc: unknown, options = {}) =>
  verifyEvidence(doc, { now, ...options }).violations.map((v) => `${v.rule} ${v.path}`);

describe('evidence verify rules', () => {
  it('accepts the schema example when it is fresh', () => {
    expect(verifyEvidence(document(), { now })).toMatchObject({ status: 'verified', violations: [] });
  });

  it('schema: a wrong type, a missing required field and a misspelt count in a closed object', () => {
    expect(rules(document((d) => Reflect.deleteProperty(d, 'vendor')))).toEqual(['schema /']);
    expect(rules(document((d) => Object.assign(d.algorithms[0], { purpose: 'hashing' })))).toEqual([
      'schema /algorithms/0/purpose',
    ]);
    expect(rules(document((d) => Object.assign(d.conformance.acvp, { pased: 1 })))).toEqual([
      'schema /conformance/acvp',
    ]);
  });

  it('counts.consistent: a total that is not passed + failed + skipped, failed beyond checks, a breakdown that does not add up', () => {
    expect(rules(document((d) => (d.conformance.acvp.total = 181)))).toEqual(['counts.consistent /conformance/acvp']);
    expect(rules(document((d) => (d.conformance.protocol.failed = 1)))).toEqual([
      'counts.consistent /conformance/protocol',
    ]);
    expect(rules(document((d) => (d.conformance.interoperability.failed = 25)))).toEqual([
      'counts.consistent /conformance/interoperability',
    ]);
    const breakdown = document(
      (d) =>
        (d.conformance.acvpByImplementation = {
          a: { total: 90, passed: 88, failed: 0, skipped: 2 },
          b: { total: 90, passed: 87, failed: 0, skipped: 3 },
        }),
    );
    expect(rules(breakdown)).toEqual([
      'counts.consistent /conformance/acvpByImplementation',
      'counts.consistent /conformance/acvpByImplementation',
    ]);
  });

  it('skipped.not_a_pass: skipped cases folded into passed, or a skip reason with no skipped count', () => {
    expect(rules(document((d) => (d.conformance.acvp.passed = 180)))).toEqual(['skipped.not_a_pass /conformance/acvp']);
    expect(
      rules(document((d) => Object.assign(d.conformance.protocol, { checks: 140, passed: 140, skipped: 8 }))),
    ).toEqual(['skipped.not_a_pass /conformance/protocol']);
    expect(rules(document((d) => Object.assign(d.conformance.acvp, { passed: 180, skipped: 0 })))).toEqual([
      'skipped.not_a_pass /conformance/acvp',
    ]);
    const message = verifyEvidence(
      document((d) => (d.conformance.acvp.passed = 180)),
      { now },
    ).violations[0]?.message;
    expect(message).toBe(
      'total 180 = passed 180 + failed 0 although skipped is 4: the skipped cases are counted as passes',
    );
  });

  it('packages.provenance_exclusive: provenance and provenanceNote together (also a schema violation)', () => {
    const doc = document((d) => (d.packages[1]!.provenance = 'https://ghcr.io/attestations/1'));
    expect(rules(doc)).toEqual(['schema /packages/1', 'packages.provenance_exclusive /packages/1']);
    expect(verifyEvidence(doc, { now }).status).toBe('invalid');
  });

  it('generated.stale: older than 30 days is unverified, the limit an option; a future date is invalid', () => {
    const old = document((d) => (d.generated = '2026-10-01T12:00:00.000Z'));
    expect(verifyEvidence(old, { now })).toMatchObject({ status: 'unverified', ageDays: 51 });
    expect(rules(old)).toEqual(['generated.stale /generated']);
    expect(verifyEvidence(old, { now, maxAgeDays: 60 }).status).toBe('verified');
    expect(rules(document((d) => (d.generated = '2026-11-22T12:00:00.000Z')))).toEqual(['generated.future /generated']);
  });

  it('reports every violation of a document, not only the first', () => {
    const doc = document((d) => {
      d.conformance.acvp.passed = 180;
      d.packages[1]!.provenance = 'https://ghcr.io/attestations/1';
      d.generated = '2025-01-01T00:00:00.000Z';
    });
    const found = new Set(verifyEvidence(doc, { now }).violations.map((v) => v.rule));
    expect([...found].sort()).toEqual([
      'generated.stale',
      'packages.provenance_exclusive',
      'schema',
      'skipped.not_a_pass',
    ] satisfies EvidenceRule[]);
  });
});

describe('svckit evidence verify (CLI)', () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, [join(REPO_ROOT, 'bin/svckit.js'), 'evidence', 'verify', ...args], {
      cwd: REPO_ROOT,
    }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );

  it('exits 0 for a valid fresh document and 1 naming each violation otherwise; a stale one is UNVERIFIED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-verify-'));
    const write = (name: string, doc: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(doc));
      return join(dir, name);
    };
    const fresh = editedExample((d) => {
      d.generated = new Date().toISOString();
    });
    const bad = structuredClone(fresh);
    bad.conformance.acvp.total = 999;
    bad.packages[1]!.provenance = 'https://ghcr.io/attestations/1';
    const stale = structuredClone(fresh);
    stale.generated = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const [ok, invalid, old, oldAllowed] = await Promise.all([
      cli(write('ok.json', fresh)),
      cli(write('bad.json', bad)),
      cli(write('stale.json', stale)),
      cli(join(dir, 'stale.json'), '--max-age-days', '45'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^VERIFIED /);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(/^INVALID .*: 3 violation\(s\)/);
    expect(invalid.stdout).toContain(
      'counts.consistent at /conformance/acvp: total 999 is not passed 176 + failed 0 + skipped 4 = 180',
    );
    expect(invalid.stdout).toContain('packages.provenance_exclusive at /packages/1');
    expect(old.code).toBe(1);
    expect(old.stdout).toMatch(/^UNVERIFIED .*generated 40\.0 days ago: stale/);
    expect(oldAllowed.code).toBe(0);
  }, 60_000);
});
