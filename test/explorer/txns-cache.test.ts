// spec: "cached for 20 seconds". explorer.txns.cache_window must fail an explorer whose /txns list lives 60 s:
// in front of the reference stack a stand-in serves GET /api/txns from a 60 s cache kept on the stack's own
// clock, and passes every other request through. The list is cached 40 s of clock time before the check's first
// request (which moves the clock 20 s on), so its later answers expire on time; only the first one gives the long
// cache away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { explorerTxnsChecks } from '../../conformance/checks/explorer/txns.ts';
import { request } from '../../conformance/http.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { type Answer, startStandIn } from '../support/stand-in.ts';

const CHECK = 'explorer.txns.cache_window';
const LONG_CACHE_MS = 60_000;

let reference: Target;
let standIn: Awaited<ReturnType<typeof startStandIn>>;

beforeAll(async () => {
  reference = await referenceTarget();
  const clock = reference.reference!;
  let cached: { at: number; answer: Answer } | undefined;
  standIn = await startStandIn(reference, async (path, forward) => {
    if (path !== 'api/txns') return forward();
    if (!cached || clock.now!() - cached.at >= LONG_CACHE_MS) cached = { at: clock.now!(), answer: await forward() };
    return cached.answer;
  });
});
afterAll(async () => {
  await standIn?.close();
  await reference?.close?.();
});

async function run(target: Target): Promise<CheckResult> {
  const catalogue = new Catalogue();
  for (const check of explorerTxnsChecks().filter((c) => c.id === CHECK)) catalogue.register(check);
  return (await runChecks(catalogue, target))[0]!;
}

describe(CHECK, () => {
  it('passes on the reference, whose list is cached 20 s', async () => {
    const result = await run(reference);
    expect(`${result.status}: ${result.reason ?? ''}`).toBe('passed: ');
  });

  it("fails a 60 s cache filled 40 s before the check's first request, naming the stale first answer", async () => {
    expect((await request(standIn.target, 'api/txns')).status).toBe(200);
    reference.reference!.advanceClock(20_000);
    const result = await run(standIn.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /^20 s after any earlier answer the newest entry is [^;]*, not the transaction 0x[0-9a-f]{64} mined just before: the list is older than 20 s$/,
    );
  });
});
