// The receiver-side webhook checks (`webhooks.*`) against the in-process reference stack: every delivery
// checked (headers, signature, payload schema, event), and the whole retry schedule on its injectable clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { webhookChecks } from '../../conformance/checks/webhooks/index.ts';
import { runChecks } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => {
  await target?.close?.();
});

describe('webhooks.* on the reference target', () => {
  it('every check passes', async () => {
    const catalogue = new Catalogue();
    for (const check of webhookChecks()) catalogue.register(check);
    const results = await runChecks(catalogue, target);
    for (const r of results) console.log(r.id, r.status, r.durationMs, r.reason ?? '');
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status}: ${r.reason}`)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(20);
  }, 300_000);
});
