// The three phases against the in-process reference stack (real TLS, Anvil, PGlite), rate limits lifted,
// a small --max-examples: no named check fails. What the engine found while it was built is fixed, in the
// server or in the contracts (docs/conformance-engine.md, "Findings"); a new failure anywhere fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../../conformance/engine/target.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import { formatHtml } from '../../../conformance/report/html.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { engineRunReport } from '../helpers/engine-report.ts';

let target: Target;
let result: EngineResult;
let credentials: Record<string, string>;

beforeAll(async () => {
  target = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } });
  const engineTarget = await engineTargetOf(target);
  credentials = engineTarget.credentials;
  result = await runEngine(engineTarget, {
    phases: ['examples', 'coverage', 'fuzz'],
    seed: 20261124,
    maxExamples: 8,
    shrinkMs: 5_000,
    // The four OpenAPI contracts; the chain surface has its own test (rpc.test.ts).
    surfaces: ['institutional', 'explorer', 'wallet', 'admin'],
  });
}, 300_000);

afterAll(async () => {
  await target?.close?.();
});

describe('engine against the in-process reference', () => {
  it('finds no failure', () => {
    const failures = result.tallies.flatMap((t) =>
      t.failures.map(
        (f) => `${t.surface} ${t.check} ${f.case.operation} (${f.case.reason}): ${f.message.slice(0, 200)}`,
      ),
    );
    expect(failures).toEqual([]);
    for (const t of result.tallies) expect(t.failed, `${t.surface} ${t.check}`).toBe(0);
  });

  it('exercises every operation of the four contracts and every named check', () => {
    const { report } = engineRunReport(result);
    for (const [surface, s] of Object.entries(report.surfaces))
      expect(s.coverage?.operations.covered, surface).toBe(s.coverage?.operations.total);
    expect(Object.keys(report.surfaces).sort()).toEqual(['admin', 'explorer', 'institutional', 'wallet']);
    for (const check of [
      'not_a_server_error',
      'status_code_conformance',
      'response_schema_conformance',
      'error_shape_conformance',
      'negative_data_rejection',
      'positive_data_acceptance',
      'ignored_auth',
      'unsupported_method',
      'content_type_conformance',
    ])
      expect(
        result.tallies.filter((t) => t.check === check).reduce((n, t) => n + t.passed, 0),
        check,
      ).toBeGreaterThan(0);
    expect(report.requests).toBe(result.requests);
    expect(report.requests).toBeGreaterThan(1000);
  });

  it('uses real credentials: authorised institutional operations answer past authentication', () => {
    const institutional = result.tallies.find(
      (t) => t.surface === 'institutional' && t.check === 'positive_data_acceptance',
    );
    expect(institutional?.passed).toBeGreaterThan(20);
    expect(institutional?.skipped).toBe(0);
  });

  it('never writes a credential into the report', () => {
    const { report } = engineRunReport(result);
    const text = JSON.stringify(report) + formatHtml(report);
    expect(Object.keys(credentials).sort()).toEqual(['adminToken', 'bearerKey', 'operatorToken', 'sessionToken']);
    for (const value of Object.values(credentials)) expect(text).not.toContain(value.replace(/^Bearer /, ''));
  });
});
