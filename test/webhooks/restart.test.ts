// Durability of the webhook schedule across a restart of the whole stack (the dispatcher survives
// restarts: the schedule continues from the stored state, never delivers a delivered job again and never
// loses a job), on the persisted in-process reference stack: PGlite files (or DATABASE_URL) and Anvil state
// kept in its data directory, the injectable clock moved by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, sleep, smallAmount } from '../../conformance/checks/institutional/support.ts';
import { registerEndpoint, transfer } from '../../conformance/checks/webhooks/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { verifyWebhook } from '../../src/client/webhook-verifier.ts';

type View = { status: string; attempts: { number: number; startedAt: string; durationMs: number; outcome: string }[] };

let target: Target;
beforeAll(async () => {
  target = await referenceTarget({ persist: true });
});
afterAll(async () => {
  await target?.close?.();
});

const view = (id: string) => adminJson<View>(target, 'GET', `/webhooks/deliveries/${id}`, undefined, 200);
async function recorded(id: string, n: number): Promise<View> {
  for (let i = 0; i < 400; i++) {
    const v = await view(id);
    if (v.attempts.length >= n) return v;
    await sleep(25);
  }
  throw new Error(`attempt ${n} of ${id} not recorded`);
}

describe('the webhook schedule across a restart', () => {
  it('continues from the stored state: on time, never redelivering a delivered job, never losing one cut short', async () => {
    let hangThird = false;
    const failing = await registerEndpoint(target, {
      events: ['payment.initiated'],
      responder: (r) => (r.nth === 3 && hangThird ? 'hang' : 500),
    });
    const fine = await registerEndpoint(target, { events: ['payment.initiated'] });
    await transfer(target, smallAmount());
    const [first] = await failing.receiver.waitFor(failing.path, (all) => all.length >= 1);
    const id = first!.headers['x-svc-delivery']!;
    await fine.receiver.waitFor(fine.path, (all) => all.length >= 1);
    await recorded(id, 1);
    target.reference!.advanceClock(30_000);
    await failing.receiver.waitFor(failing.path, (all) => all.length >= 2);
    const before = await recorded(id, 2);

    await target.reference!.restart!();

    // Attempt 3 is due 5 minutes after attempt 2 ended, as stored: not a second early, and then at once.
    // The restart itself took real time on the stack's clock, so the advance is measured from now.
    const end2 = Date.parse(before.attempts[1]!.startedAt) + before.attempts[1]!.durationMs;
    target.reference!.advanceClock(end2 + 300_000 - target.reference!.now!() - 5000);
    await sleep(500);
    expect(failing.receiver.deliveries(failing.path)).toHaveLength(2);
    hangThird = true;
    target.reference!.advanceClock(5100);
    const third = (await failing.receiver.waitFor(failing.path, (all) => all.length >= 3))[2]!;
    expect(third.headers['x-svc-delivery']).toBe(id);
    expect(third.receivedAt - end2).toBeGreaterThanOrEqual(300_000);
    expect(third.receivedAt - end2).toBeLessThan(300_000 + 3000);
    expect(() => verifyWebhook(third.rawBody, third.headers, failing.secret, { now: third.receivedAt })).not.toThrow();

    // Stopped while attempt 3 is in flight: the attempt is not lost; after the restart it is made again at once.
    await target.reference!.restart!();
    hangThird = false;
    const again = await failing.receiver.waitFor(failing.path, (all) => all.length >= 4, 30_000);
    expect(again[3]!.headers['x-svc-delivery']).toBe(id);
    expect(Number(again[3]!.headers['x-svc-timestamp'])).toBeGreaterThan(Number(third.headers['x-svc-timestamp']) - 1);
    const after = await recorded(id, 3);
    expect(after.attempts.map((a) => [a.number, a.outcome])).toEqual([
      [1, 'failure'],
      [2, 'failure'],
      [3, 'failure'],
    ]);

    // The delivered job of the other endpoint is never sent again, hours later.
    target.reference!.advanceClock(3 * 3600_000);
    await sleep(800);
    expect(fine.receiver.deliveries(fine.path)).toHaveLength(1);
  }, 180_000);
});
