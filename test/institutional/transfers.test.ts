// Surface A transfers on the in-process reference stack (persisted, so it can be crashed and restarted):
// request rules, the Idempotency-Key, the lifecycle to confirmed on Anvil, memo encryption, a broadcast the
// node refuses, a crash between the stored record and the broadcast, and a generated SDK client. None skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { institutionalRuleChecks } from '../../conformance/checks/institutional/rules.ts';
import { institutionalSdkChecks } from '../../conformance/checks/institutional/sdk.ts';
import { institutionalTransferChecks } from '../../conformance/checks/institutional/transfers.ts';
import { runChecks, summarise } from '../../conformance/runner.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { nonPasses, runGroup, startTarget } from './support.ts';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  await target?.close?.();
});

describe('institutional transfers on the reference stack', () => {
  it('paging, memo, amount, limit, status and Idempotency-Key rules hold', async () => {
    const results = await runGroup(target, institutionalRuleChecks());
    expect(nonPasses(results)).toEqual([]);
    expect(summarise(results)).toEqual({ passed: institutionalRuleChecks().length, failed: 0, skipped: 0 });
  }, 120_000);

  it('a generated SDK client works with either credential', async () => {
    const results = await runGroup(target, institutionalSdkChecks());
    expect(nonPasses(results)).toEqual([]);
  }, 120_000);

  it('transfers confirm, memos are sealed, a refused broadcast fails a transfer once, a crash loses and duplicates nothing', async () => {
    const results = await runGroup(target, institutionalTransferChecks());
    expect(nonPasses(results)).toEqual([]);
    expect(summarise(results)).toEqual({ passed: institutionalTransferChecks().length, failed: 0, skipped: 0 });
  }, 180_000);

  it('the recovery checks skip, saying why, on a reference target without their controls', async () => {
    const thin: Target = {
      kind: 'reference',
      base: target.base!,
      caCert: target.caCert!,
      capabilities: new Set(['base', 'admin', 'reference']),
      adminToken: target.adminToken!,
      reference: { advanceClock: () => undefined, mineBlock: () => target.reference!.mineBlock() },
    };
    const catalogue = new Catalogue();
    for (const check of institutionalTransferChecks().filter((c) => /broadcast_failure|crash_recovery/.test(c.id)))
      catalogue.register(check);
    const results = await runChecks(catalogue, thin);
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['institutional.transfer.broadcast_failure', 'skipped', 'the reference target offers no refuseNextSend()'],
      [
        'institutional.transfer.crash_recovery',
        'skipped',
        'the reference target was started without persist: true (no crash/restart)',
      ],
    ]);
  });
});
