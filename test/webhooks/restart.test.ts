// Durability of the webhook schedule across a restart of the whole stack (the dispatcher survives
// restarts: the schedule continues from the stored state, never delivers a delivered job again and never
// loses a job), on a persisted test stack: PGlite files (or a fresh database of DATABASE_URL's server) and
// Anvil state kept in its data directory, the injectable clock moved by the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, sleep, smallAmount } from '../../conformance/checks/institutional/support.ts';
import { registerEndpoint, transfer } from '../../conformance/checks/webhooks/support.ts';
import { freshDatabase } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { verifyWebhook } from '../../src/client/webhook-verifier.ts';
import { OffsetClock } from '../../src/clock.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';

type View = { status: string; attempts: { number: number; startedAt: string; durationMs: number; outcome: string }[] };

let target: Target;
let running: TestStack;
let dataDir: string;
let database: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-restart-'));
  database = await freshDatabase(process.env.DATABASE_URL);
  const clock = new OffsetClock();
  const env = {
    ...LIFTED_LIMITS,
    // D-102: the stack trusts the test receiver's CA; D-143: the receiver listens on loopback.
    SVC_WEBHOOK_CA_FILE: (await receiverTls()).caCertPath,
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  running = await startTestStack({ env, dataDir, clock });
  // One target object for the whole file: the helpers keep its receiver and parties by it.
  target = { ...running.target };
  target.reference = {
    advanceClock: (ms) => {
      clock.advance(ms);
      running.stack.webhooks.wake();
    },
    mineBlock: async () => {
      await running.stack.chain.producer?.requestBlock();
    },
    now: () => clock.now(),
    restart: async () => {
      await running.close();
      running = await startTestStack({ env, dataDir, clock });
      // A restart prints no admin token: the first one stays.
      target.base = running.target.base;
      target.wallet = running.target.wallet;
      target.site = running.target.site;
      target.caCert = running.target.caCert;
    },
  };
});
afterAll(async () => {
  // Closes the receiver the helpers started with the target, then the stack.
  await target?.close?.();
  await running?.close();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The stack's dispatcher has looked for due jobs at the clock's present reading and finished what it claimed. */
async function settled(): Promise<void> {
  running.stack.webhooks.wake();
  await running.stack.webhooks.dispatcher.idle();
}

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
    await settled();
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
    await settled();
    expect(fine.receiver.deliveries(fine.path)).toHaveLength(1);
  }, 180_000);
});
