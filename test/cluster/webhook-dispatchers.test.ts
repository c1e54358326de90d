// Three webhook dispatchers on one PostgreSQL server, each with its own connection pool, as three `svckit
// serve` instances run them: every delivery is attempted exactly once per scheduled time (spec "Retry
// policy"), the jobs being claimed with FOR UPDATE SKIP LOCKED (src/webhooks/dispatcher.ts). A real HTTPS
// receiver fails the first two attempts of every delivery and counts attempts per delivery id and time; the
// injectable clock, shared by the three, is moved by hand through the schedule.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../../conformance/webhooks/receiver.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { ManualClock } from '../../src/clock.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { webhookDeliveries } from '../../src/storage/schema.ts';
import { DeliveryStore } from '../../src/webhooks/deliveries.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { EndpointStore } from '../../src/webhooks/endpoints.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { startPostgres, waitFor, type Service } from './services.ts';

const DEBTOR = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';
const DELIVERIES = 40;
const FAILING_ATTEMPTS = 2;
const secrets = new WebhookSecretBox(Keyring.open({ dataDir: null }));
const clock = new ManualClock();

let postgres: Service;
let receiver: WebhookReceiver;
let ca: string;
const databases: OpenDatabase[] = [];
const dispatchers: WebhookDispatcher[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  const tls = await receiverTls();
  ca = tls.caCert;
  receiver = await WebhookReceiver.start({ tls, clock: () => clock.now() });
  // The first opening migrates; the other two find the schema in place (as instances started one by one do).
  for (let i = 0; i < 3; i++) databases.push(await openDatabase({ databaseUrl: postgres.url, dataDir: null }));
});
afterAll(async () => {
  for (const d of dispatchers) await d.stop(200);
  receiver?.releaseHung(500);
  await receiver?.close();
  for (const db of databases) await db.close();
  await postgres?.stop();
});

describe('three webhook dispatchers on one PostgreSQL', () => {
  it('attempt each delivery exactly once per scheduled time', async () => {
    const db = databases[0]!.db;
    const path = `/cluster/${crypto.randomUUID()}`;
    receiver.respond(path, (r) => (r.nth <= FAILING_ATTEMPTS ? 500 : 200));
    const endpoints = new EndpointStore(db, clock, secrets);
    const endpoint = await endpoints.create({ url: receiver.url(path), accountIds: [DEBTOR] });
    await endpoints.setSecret(endpoint.id, 'cluster-signing-secret-0123456789abcdef', 0);
    for (const { db: own } of databases) {
      const dispatcher = new WebhookDispatcher(
        own,
        clock,
        new WebhookTransport(clock, { ca: [ca], maxSockets: 8, watchMs: 5, allowPrivate: true }),
        { concurrency: 8, pollMs: 20, secrets },
      );
      dispatcher.start();
      dispatchers.push(dispatcher);
    }
    const uetrs = Array.from({ length: DELIVERIES }, () => crypto.randomUUID());
    for (const uetr of uetrs) {
      await db.transaction((tx) =>
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
    }
    const deliveries = new DeliveryStore(db, clock);
    const ids = await Promise.all(
      uetrs.map(async (uetr) => {
        const [row] = await db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.uetr, uetr));
        return row!.id;
      }),
    );
    const start = clock.now();
    const scheduled = [start];
    // Each round: every delivery's attempt arrives and is recorded, then the clock moves to the next time.
    for (let attempt = 1; attempt <= FAILING_ATTEMPTS + 1; attempt++) {
      await waitFor(`attempt ${attempt} of every delivery`, async () => {
        if (receiver.deliveries(path).length < attempt * DELIVERIES) return false;
        const found = await Promise.all(ids.map((id) => deliveries.find(id)));
        return found.every((d) => d!.attempts.length >= attempt);
      });
      if (attempt <= FAILING_ATTEMPTS) {
        clock.advance(RETRY_DELAYS_MS[attempt]!);
        scheduled.push(clock.now());
      }
    }
    // Time for a second attempt at the same time, if any dispatcher were to make one.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const received = receiver.deliveries(path);
    const perIdAndTime = new Map<string, number>();
    for (const r of received) {
      const key = `${r.headers['x-svc-delivery']}@${r.receivedAt}`;
      perIdAndTime.set(key, (perIdAndTime.get(key) ?? 0) + 1);
    }
    expect(received).toHaveLength(DELIVERIES * (FAILING_ATTEMPTS + 1));
    expect([...perIdAndTime.values()].every((n) => n === 1)).toBe(true);
    const expectedKeys = ids.flatMap((id) => scheduled.map((t) => `${id}@${t}`)).sort();
    expect([...perIdAndTime.keys()].sort()).toEqual(expectedKeys);
    for (const id of ids) {
      const found = (await deliveries.find(id))!;
      expect(found.status).toBe('delivered');
      expect(found.attempts.map((a) => [a.number, a.outcome])).toEqual([
        [1, 'failure'],
        [2, 'failure'],
        [3, 'success'],
      ]);
    }
  });
});
