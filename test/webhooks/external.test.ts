// The webhook checks against a target given by URL (kind remote): its clock cannot be moved, so only what real
// time shows is checked (attempts 1 and 2), and the checks that need the whole schedule are skipped with that
// reason, never counted as passed. The deployment here is an in-process reference stack reached only by URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { webhookChecks } from '../../conformance/checks/webhooks/index.ts';
import { formatConsole } from '../../conformance/report/console.ts';
import { runChecks, summarise } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';

let deployment: Target;
let external: Target;
beforeAll(async () => {
  deployment = await referenceTarget();
  external = remoteTarget({
    base: deployment.base!.href,
    caCert: deployment.caCert!,
    adminToken: deployment.adminToken!,
  });
});
afterAll(async () => {
  await external?.close?.();
  await deployment?.close?.();
});

describe('webhooks.* against an external target', () => {
  it('checks attempts 1 and 2 in real time and says why the rest of the schedule is skipped', async () => {
    const wanted = [
      'webhooks.delivery.headers',
      'webhooks.delivery.signature',
      'webhooks.retry.second_attempt',
      'webhooks.retry.schedule',
      'webhooks.retry.redeliver',
    ];
    const catalogue = new Catalogue();
    for (const check of webhookChecks().filter((c) => wanted.includes(c.id))) catalogue.register(check);
    const results = await runChecks(catalogue, external);
    console.log(formatConsole(results));
    const by = Object.fromEntries(results.map((r) => [r.id, r]));
    for (const id of ['webhooks.delivery.headers', 'webhooks.delivery.signature', 'webhooks.retry.second_attempt'])
      expect(by[id]!.status, `${id}: ${by[id]!.reason}`).toBe('passed');
    for (const id of ['webhooks.retry.schedule', 'webhooks.retry.redeliver']) {
      expect(by[id]!.status).toBe('skipped');
      expect(by[id]!.reason).toMatch(/only attempts 1 and 2 are observable/);
    }
    expect(summarise(results)).toEqual({ passed: 3, failed: 0, skipped: 2 });
  }, 180_000);
});
