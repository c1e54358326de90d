// Evidence documents generated from specs/evidence.schema.json fed to `evidence verify`: valid ones verify
// (schema and rules), every schema coverage variant is refused naming its field, every rule beyond the
// schema is enforced, and a sample gets the same verdict through the real command. A verifier that ignores a
// required field, or a rule, is caught by the named check that says so.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ratio } from '../../../conformance/engine/core/coverage.ts';
import type { DocumentResult } from '../../../conformance/engine/core/documents.ts';
import {
  documentArbitrary,
  type EvidenceVerifier,
  evidenceSchema,
  runEvidenceCases,
} from '../../../conformance/engine/json-schema/evidence-cases.ts';
import { asCheckTallies } from '../../../conformance/engine/documents-run.ts';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import { formatConsole } from '../../../conformance/report/console.ts';
import { formatRunFooter } from '../../../conformance/report/index.ts';
import { formatJUnit } from '../../../conformance/report/junit.ts';
import { writeRunReports } from '../../../conformance/report/write.ts';
import { verifyEvidence } from '../../../src/evidence/verify.ts';
import { SPECS_DIR } from '../../../src/paths.ts';
import { engineRunReport } from '../helpers/engine-report.ts';

const run = (verify?: EvidenceVerifier, cliSample = 0) =>
  runEvidenceCases({
    phases: ['examples', 'coverage', 'fuzz'],
    seed: 11,
    maxExamples: 30,
    specsDir: SPECS_DIR,
    cliSample,
    ...(verify ? { verify } : {}),
  });
const tally = (r: DocumentResult, check: string) => r.tallies.find((t) => t.check === check);

/** `verifyEvidence` with the violations `drop` selects removed (the status recomputed as the verifier does). */
const without =
  (drop: (v: { rule: string; path: string; message: string }) => boolean): EvidenceVerifier =>
  (doc, options) => {
    const result = verifyEvidence(doc, options);
    const violations = result.violations.filter((v) => !drop(v));
    const onlyStale = violations.length > 0 && violations.every((v) => v.rule === 'generated.stale');
    return {
      ...result,
      violations,
      status: violations.length === 0 ? 'verified' : onlyStale ? 'unverified' : 'invalid',
    };
  };

describe('evidence documents', () => {
  it('valid documents verify, schema variants and rule breaks are refused, the command agrees on a sample', async () => {
    const r = await run(undefined, 3);
    expect(r.tallies.flatMap((t) => t.failures.map((f) => `${f.check} ${f.case.reason}: ${f.message}`))).toEqual([]);
    expect(tally(r, 'evidence_valid_verified')?.passed).toBeGreaterThan(20);
    expect(tally(r, 'evidence_schema_refused')?.passed).toBeGreaterThan(100);
    // Six rules beyond the schema, each at least once.
    expect(tally(r, 'evidence_rule_refused')?.passed).toBeGreaterThanOrEqual(6);
    // A valid document, a schema refusal and a rule refusal through `svckit evidence verify`.
    expect(tally(r, 'evidence_cli_agrees')?.passed).toBe(3);
    for (const t of r.tallies) expect(t.skipped, t.check).toBe(0);
    const keywords = ratio(r.coverage.responses);
    expect(keywords.total).toBeGreaterThan(100);
    expect(keywords.covered).toBe(keywords.total);
  }, 240_000);

  it("generated valid documents pass the schema part and the rules at the verifier's own clock", () => {
    const docs = fc.sample(documentArbitrary(evidenceSchema(SPECS_DIR), Date.now()), { seed: 5, numRuns: 40 });
    for (const doc of docs) expect(verifyEvidence(doc).violations).toEqual([]);
    // The generator reaches the optional parts the rules look at.
    expect(docs.some((d) => (d.conformance as { acvp?: unknown } | undefined)?.acvp !== undefined)).toBe(true);
  });

  it('catches a verifier that ignores a missing required field (evidence_schema_refused)', async () => {
    const r = await run(without((v) => v.rule === 'schema' && v.path === '/vendor' && v.message.includes("'url'")));
    const t = tally(r, 'evidence_schema_refused');
    expect(t?.failed).toBeGreaterThan(0);
    expect(t?.failures[0]?.case.reason).toBe('/vendor/url missing (required)');
    expect(t?.failures[0]?.message).toContain('verified, expected invalid');
    expect(tally(r, 'evidence_rule_refused')?.failed).toBe(0);
  }, 120_000);

  it('catches a verifier that lets counts that do not add up through (evidence_rule_refused)', async () => {
    const r = await run(without((v) => v.rule === 'counts.consistent'));
    const reasons = tally(r, 'evidence_rule_refused')?.failures.map((f) => f.case.reason) ?? [];
    expect(reasons).toContain('conformance.acvp total 5 is not passed 2 + failed 1 + skipped 1');
    expect(tally(r, 'evidence_schema_refused')?.failed).toBe(0);
  }, 120_000);
});

describe("the document surfaces in the engine's run and reports", () => {
  it('runEngine reports webhooks and evidence with their checks, counts and coverage', async () => {
    const result = await runEngine(
      { bases: {}, credentials: {} },
      { phases: ['examples', 'coverage'], seed: 3, maxExamples: 5, surfaces: [], documents: ['webhooks', 'evidence'] },
    );
    const { results, report } = engineRunReport(result);
    expect(Object.keys(report.surfaces)).toEqual(['webhooks', 'evidence']);
    const on = (surface: string) =>
      report.checks.filter((c) => c.cases?.bySurface[surface] !== undefined).map((c) => c.id);
    expect(on('webhooks')).toEqual([
      'generated.message_valid_accepted',
      'generated.message_tampered_refused',
      'generated.message_invalid_refused',
    ]);
    expect(on('evidence')).toEqual([
      'generated.evidence_valid_verified',
      'generated.evidence_schema_refused',
      'generated.evidence_rule_refused',
      'generated.evidence_cli_agrees',
    ]);
    expect(report.summary).toEqual({ passed: 7, failed: 0, skipped: 0 });
    expect(report.cases.failed).toBe(0);
    expect(report.cases.passed).toBeGreaterThan(500);
    expect(report.surfaces.webhooks?.coverage?.responses).toEqual({ covered: 20, total: 20 });
    expect(result.coverage.webhooks?.responses['payment.settled X-SVC-Signature']).toBe(true);
    expect(result.coverage.evidence?.responses['/vendor/url required']).toBe(true);
    expect(report.score).toBe(100);
    expect(formatConsole(results, formatRunFooter(report))).toMatch(
      /generated evidence: \d+ cases judged in process, cases \d+ passed, 0 failed, 0 skipped/,
    );
    const junit = formatJUnit(results);
    expect(junit).toContain(
      '<testsuite name="generated from the contracts" tests="7" failures="0" errors="0" skipped="0"',
    );
    for (const c of report.checks) expect(junit).toContain(`name="${c.id}"`);
  }, 240_000);

  it('a failure of a document check is written as a document case file with the document that broke it', async () => {
    const done = await run(without((v) => v.rule === 'schema' && v.path === '/vendor' && v.message.includes("'url'")));
    const out = mkdtempSync(path.join(tmpdir(), 'svckit-document-reports-'));
    const { results, report } = engineRunReport({
      seed: 11,
      phases: ['coverage'],
      maxExamples: 30,
      requests: 0,
      durationMs: 0,
      timings: [],
      tallies: asCheckTallies(done),
      coverage: { evidence: done.coverage },
    });
    await writeRunReports(report, results, { formats: [], outDir: out });
    const file = JSON.parse(readFileSync(path.join(out, 'cases', '1.json'), 'utf8'));
    expect(file.kind).toBe('svckit-document-case');
    expect(file.check).toBe('generated.evidence_schema_refused');
    expect(file.case.reason).toBe('/vendor/url missing (required)');
    expect(JSON.parse(file.request.body).vendor.url).toBeUndefined();
  }, 120_000);
});
