// The dispatcher on a real PGlite database and a real HTTPS receiver, with the injectable clock moved by hand
// (house rule 6): spec "Retry policy" and "Webhook delivery (B)", D-052 timing, D-060 redelivery.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookReceiver, type Answer, type Received } from '../../conformance/webhooks/receiver.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { verifyWebhook } from '../../src/client/webhook-verifier.ts';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { DeliveryStore } from '../../src/webhooks/deliveries.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { EndpointStore } from '../../src/webhooks/endpoints.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { webhookDeliveries } from '../../src/storage/schema.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';

/** The endpoints' secrets are sealed (D-130) with one in-memory keyring shared by the store and the dispatchers. */
const secrets = new WebhookSecretBox(Keyring.open({ dataDir: null }));

const SECRET = 'test-signing-secret-0123456789abcdef';
/** The debtor account of every emitted payment; the endpoint belongs to its institution (D-142). */
const DEBTOR = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';
let receiver: WebhookReceiver;
let ca: string;
let database: OpenDatabase;
let clock: ManualClock;
/** How often the transports read the clock: their attempts' start and end, and their watchdog's every tick. */
let transportReads = 0;
const running: WebhookDispatcher[] = [];

beforeAll(async () => {
  const tls = await receiverTls();
  ca = tls.caCert;
  receiver = await WebhookReceiver.start({ tls, clock: () => clock.now() });
});
afterAll(async () => {
  await receiver?.close();
});
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop(200);
  receiver.releaseHung(500);
  await database?.close();
});

/** A fresh database, clock, endpoint (scripted by `answer`) and dispatcher. */
async function setup(answer: (r: Received) => Answer = () => 200) {
  database = await freshDatabase();
  clock = new ManualClock();
  const path = `/t/${crypto.randomUUID()}`;
  receiver.respond(path, answer);
  const endpoints = new EndpointStore(database.db, clock, secrets);
  const endpoint = await endpoints.create({ url: receiver.url(path), accountIds: [DEBTOR] });
  await endpoints.setSecret(endpoint.id, SECRET, 0);
  return { path, endpoints, endpoint, deliveries: new DeliveryStore(database.db, clock), start: () => dispatcher() };
}

/**
 * PGlite in memory, or with DATABASE_URL a new database on that PostgreSQL server (CI's PostgreSQL pass), where
 * several dispatchers really run concurrently over the pool's connections and SKIP LOCKED is what keeps them apart.
 */
async function freshDatabase(): Promise<OpenDatabase> {
  const server = process.env.DATABASE_URL;
  if (!server) return openDatabase({ dataDir: null });
  const name = `svckit_wh_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const opened = await openDatabase({ databaseUrl: url.href, dataDir: null });
  return {
    ...opened,
    close: async () => {
      await opened.close();
      const drop = new pg.Client({ connectionString: server });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await drop.end();
    },
  };
}

function dispatcher(concurrency = 8): WebhookDispatcher {
  const d = new WebhookDispatcher(
    database.db,
    clock,
    new WebhookTransport(
      {
        now: () => {
          transportReads++;
          return clock.now();
        },
      },
      { ca: [ca], maxSockets: concurrency, watchMs: 5, allowPrivate: true },
    ),
    { concurrency, pollMs: 20, secrets },
  );
  d.start();
  running.push(d);
  return d;
}

/** Emits one payment.initiated event; returns its delivery id. */
async function emit(uetr = crypto.randomUUID()): Promise<string> {
  await database.db.transaction((tx) =>
    emitEvent(
      tx,
      {
        event: 'payment.initiated',
        uetr,
        txRef: 'PMT-20261121-4Z7K9M2Q8R1T',
        status: 'INITIATED',
        instrAmtCcy: 'SVC',
        instrAmt: 1,
        settlAmtCcy: 'SVC',
        settlAmt: 1,
        dbtrInst: 'SVCKGB2LXXX',
        cdtrInst: 'SVCKGB2LXXX',
      },
      { debtorAccountId: DEBTOR, creditorAccountId: null },
      new Date(clock.now()),
    ),
  );
  const [row] = await database.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.uetr, uetr));
  return row!.id;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const arrived = (path: string, n: number) =>
  until(
    () => (receiver.deliveries(path).length >= n ? receiver.deliveries(path) : undefined),
    `${n} deliveries on ${path}`,
  );
const recorded = (deliveries: DeliveryStore, id: string, n: number) =>
  until(
    async () => ((await deliveries.find(id))!.attempts.length >= n ? deliveries.find(id) : undefined),
    `${n} attempts of ${id}`,
  );
/**
 * Every running dispatcher looks for due jobs at the clock's present reading and finishes what it claimed (the
 * receiver has seen each attempt before it is answered); what has not arrived by then is not due.
 */
const quiet = async (path: string, n: number) => {
  for (const d of running) d.wake();
  await Promise.all(running.map((d) => d.idle()));
  expect(receiver.deliveries(path).length).toBe(n);
};

describe('the webhook dispatcher', () => {
  it('a 2xx within 10 s is delivered and never sent again', async () => {
    const { path, deliveries, start } = await setup();
    const d = start();
    const id = await emit();
    d.wake();
    await arrived(path, 1);
    const record = await until(
      async () => ((await deliveries.find(id))!.status === 'delivered' ? deliveries.find(id) : undefined),
      'delivered',
    );
    expect(record!.attempts).toMatchObject([
      { round: 1, number: 1, outcome: 'success', responseStatus: 200, error: null },
    ]);
    clock.advance(24 * 3600_000);
    d.wake();
    await quiet(path, 1);
  });

  it('a receiver answering after more than 10 s counts as a failure; at exactly 10 s it is in time', async () => {
    const { path, deliveries, start } = await setup((r) => (r.nth <= 2 ? 'hang' : 200));
    start();
    const id = await emit();
    await arrived(path, 1);
    clock.advance(10_001);
    const failed = await recorded(deliveries, id, 1);
    // D-052: the 10-second clock stops when the status line arrives; none did.
    expect(failed!.attempts[0]).toMatchObject({
      number: 1,
      outcome: 'failure',
      responseStatus: null,
      error: 'no response within 10 seconds',
      durationMs: 10_001,
    });
    expect(failed!.status).toBe('pending');
    expect(failed!.nextAttemptAt!.getTime()).toBe(failed!.attempts[0]!.startedAt.getTime() + 10_001 + 30_000);
    receiver.releaseHung(200); // too late: already counted
    clock.advance(30_000);
    await arrived(path, 2);
    clock.advance(10_000);
    // The watchdog (every 5 ms) must have looked at the clock at exactly 10 s and let the attempt run on.
    const reads = transportReads;
    await until(() => transportReads >= reads + 2, 'two watchdog readings of the clock at 10 s');
    receiver.releaseHung(200);
    const done = await until(
      async () => ((await deliveries.find(id))!.status === 'delivered' ? deliveries.find(id) : undefined),
      'delivered at 10 s',
    );
    expect(done!.attempts[1]).toMatchObject({ number: 2, outcome: 'success', responseStatus: 200, durationMs: 10_000 });
  });

  it('a failing delivery is attempted exactly 5 times on the schedule, each freshly signed, then it is DEAD', async () => {
    const { path, deliveries, start } = await setup(() => 500);
    start();
    const id = await emit();
    await arrived(path, 1);
    for (let n = 2; n <= 5; n++) {
      await recorded(deliveries, id, n - 1);
      clock.advance(RETRY_DELAYS_MS[n - 1]! - 1);
      await quiet(path, n - 1); // not one millisecond early
      clock.advance(1);
      await arrived(path, n);
    }
    const dead = await until(
      async () => ((await deliveries.find(id))!.status === 'dead' ? deliveries.find(id) : undefined),
      'dead',
    );
    expect(dead!.attempts.map((a) => [a.round, a.number, a.outcome, a.responseStatus])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [1, n, 'failure', 500]),
    );
    const gaps = dead!.attempts
      .slice(1)
      .map((a, i) => a.startedAt.getTime() - (dead!.attempts[i]!.startedAt.getTime() + dead!.attempts[i]!.durationMs));
    expect(gaps).toEqual([30_000, 300_000, 1_800_000, 7_200_000]);
    const received = receiver.deliveries(path);
    expect(new Set(received.map((r) => r.headers['x-svc-delivery']))).toEqual(new Set([id]));
    // Never signed with a stale timestamp: each attempt's X-SVC-Timestamp is the clock at that attempt.
    for (const r of received) {
      expect(Number(r.headers['x-svc-timestamp'])).toBe(Math.floor(r.receivedAt / 1000));
      expect(() => verifyWebhook(r.rawBody, r.headers, SECRET, { now: r.receivedAt })).not.toThrow();
    }
    expect(new Set(received.map((r) => r.headers['x-svc-signature'])).size).toBe(5);
    clock.advance(24 * 3600_000);
    await quiet(path, 5);

    // D-060: redelivery starts round 2 with the same id, signed afresh.
    receiver.respond(path, () => 200);
    const again = await deliveries.redeliver(id);
    expect(again).toMatchObject({ status: 'pending', round: 2 });
    running[0]!.wake();
    const [, , , , , sixth] = await arrived(path, 6);
    expect(sixth!.headers['x-svc-delivery']).toBe(id);
    expect(Number(sixth!.headers['x-svc-timestamp'])).toBe(Math.floor(clock.now() / 1000));
    expect(Number(sixth!.headers['x-svc-timestamp'])).toBeGreaterThan(Number(received[4]!.headers['x-svc-timestamp']));
    expect(received.map((r) => r.headers['x-svc-signature'])).not.toContain(sixth!.headers['x-svc-signature']);
    expect(() => verifyWebhook(sixth!.rawBody, sixth!.headers, SECRET, { now: clock.now() })).not.toThrow();
    const delivered = await until(
      async () => ((await deliveries.find(id))!.status === 'delivered' ? deliveries.find(id) : undefined),
      'delivered',
    );
    expect(delivered!.attempts.at(-1)).toMatchObject({ round: 2, number: 1, outcome: 'success' });
    expect(await deliveries.redeliver(id)).toEqual({ notDead: 'delivered' });
  });

  it('after a restart the remaining attempts happen on time, from the stored schedule', async () => {
    const { path, deliveries, start } = await setup(() => 500);
    const first = start();
    const id = await emit();
    await arrived(path, 1);
    await recorded(deliveries, id, 1);
    clock.advance(30_000);
    await arrived(path, 2);
    await recorded(deliveries, id, 2);
    await first.stop();
    running.splice(running.indexOf(first), 1);
    // A new instance (new lease owner) on the same database: attempt 3 is still due 5 minutes after attempt 2.
    start();
    clock.advance(300_000 - 1);
    await quiet(path, 2);
    clock.advance(1);
    await arrived(path, 3);
    expect((await recorded(deliveries, id, 3))!.attempts.map((a) => a.number)).toEqual([1, 2, 3]);
  });

  it('a job leased by an instance that died is taken over when its lease expires, never before', async () => {
    const { path, deliveries, start } = await setup();
    const id = await emit();
    await database.db.execute(
      sql`UPDATE webhook_deliveries SET lease_owner = 'crashed-instance', lease_until = ${new Date(clock.now() + 60_000).toISOString()}::timestamptz WHERE id = ${id}`,
    );
    start();
    await quiet(path, 0);
    clock.advance(60_001);
    await arrived(path, 1);
    expect((await recorded(deliveries, id, 1))!.status).toBe('delivered');
  });

  it('several dispatchers on one database deliver each job exactly once', async () => {
    const { path, deliveries, start } = await setup();
    const ids = await Promise.all(Array.from({ length: 60 }, () => emit()));
    start();
    start();
    start();
    await arrived(path, 60);
    await until(
      async () => ((await deliveries.page({ status: 'delivered' }, 1, 200)).total === 60 ? true : undefined),
      'all delivered',
    );
    await quiet(path, 60);
    expect(
      receiver
        .deliveries(path)
        .map((r) => r.headers['x-svc-delivery'])
        .sort(),
    ).toEqual([...ids].sort());
  });
});
