// spec: the service delivers events to "HTTPS endpoints registered by the institution". D-142: an endpoint
// names its institution's accounts and receives only the events of payments whose debtor or creditor account
// is one of them. Two institutions on the reference stack (real Anvil, real TLS, PGlite or DATABASE_URL's
// PostgreSQL), each with its own endpoint and HTTPS receiver path.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount, type AccountView } from '../../conformance/checks/institutional/support.ts';
import { receiverFor } from '../../conformance/checks/webhooks/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import type { WebhookReceiver } from '../../conformance/webhooks/receiver.ts';
import { sql } from 'drizzle-orm';
import { systemClock } from '../../src/clock.ts';
import { DeliveryStore } from '../../src/webhooks/deliveries.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { admin, eventually, wallet } from '../admin/support.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

let target: Target;
beforeAll(async () => {
  target = await sharedReferenceTarget();
});

const SECRET = 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU';
/** An address no platform account owns: a payment to it has only the debtor's side. */
const EXTERNAL = '0x00000000000000000000000000000000000000e1';

type Delivery = { event: string; uetr: string; payload: { onChainTxHash?: string } };

/** Registers an endpoint for `accounts` on a fresh path of the harness receiver and sets its secret. */
async function endpointOf(receiver: WebhookReceiver, accounts: AccountView[]): Promise<{ id: string; path: string }> {
  const path = `/hooks/institution-${randomUUID()}`;
  const created = await admin(target, 'POST', '/webhooks/endpoints', {
    url: receiver.url(path),
    accountIds: accounts.map((a) => a.id),
  });
  expect(created.status).toBe(201);
  const { id } = created.json as { id: string };
  expect(
    (await admin(target, 'PUT', `/webhooks/endpoints/${id}/secret`, { secret: SECRET, gracePeriodSeconds: 0 })).status,
  ).toBe(200);
  return { id, path };
}

/** Every delivery job of `endpointId` (pending, delivered or dead): what the fan-out created for it. */
async function jobsOf(endpointId: string): Promise<Delivery[]> {
  const page = await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=200`);
  expect(page.status).toBe(200);
  return (page.json as { deliveries: Delivery[] }).deliveries;
}

describe('webhook endpoints belong to an institution (D-142)', () => {
  it("delivers a payment's events only to the endpoints of the institutions on either side of it", async () => {
    const receiver = await receiverFor(target);
    const [a1, a2, b1] = [
      await newAccount(target, { fund: '100.00' }),
      await newAccount(target),
      await newAccount(target, { fund: '100.00' }),
    ];
    const endpointA = await endpointOf(receiver, [a1, a2]);
    const endpointB = await endpointOf(receiver, [b1]);
    const key = await apiKey(target, ['transfers:write', 'transfers:read']);
    const send = async (from: AccountView, to: string) => {
      const sent = await wallet(target, 'POST', '/transfers', key, { fromAccountId: from.id, to, amount: '1.00' });
      expect(sent.status).toBe(201);
      return (sent.json as { txHash: string }).txHash;
    };
    const within = { a: await send(a1, a2.address), b: await send(b1, EXTERNAL) };
    const outward = await send(a1, EXTERNAL);
    const between = await send(a1, b1.address);

    // Each payment's settled event names its settling transaction: that maps the hashes to uetrs.
    const uetrOf = (deliveries: Delivery[], hash: string) =>
      deliveries.find((d) => d.event === 'payment.settled' && d.payload.onChainTxHash === hash)?.uetr;
    const aJobs = await eventually(async () => {
      const jobs = await jobsOf(endpointA.id);
      return [within.a, outward, between].every((hash) => uetrOf(jobs, hash)) ? jobs : undefined;
    });
    const bJobs = await eventually(async () => {
      const jobs = await jobsOf(endpointB.id);
      return [within.b, between].every((hash) => uetrOf(jobs, hash)) ? jobs : undefined;
    });
    const uetrs = {
      withinA: uetrOf(aJobs, within.a)!,
      outward: uetrOf(aJobs, outward)!,
      between: uetrOf(aJobs, between)!,
      withinB: uetrOf(bJobs, within.b)!,
    };
    expect(uetrOf(bJobs, between)).toBe(uetrs.between);

    // The fan-out wrote each event's jobs with the event: by now every job of these four payments exists.
    expect(new Set(aJobs.map((d) => d.uetr))).toEqual(new Set([uetrs.withinA, uetrs.outward, uetrs.between]));
    expect(new Set(bJobs.map((d) => d.uetr))).toEqual(new Set([uetrs.withinB, uetrs.between]));

    // And over the wire: both receivers get the payment between A and B; nothing of A's own reaches B, nor B's own A.
    const arrived = async (path: string, expected: string[]) => {
      const received = await receiver.waitFor(path, (got) =>
        expected.every((uetr) =>
          got.some((r) => JSON.parse(r.rawBody).uetr === uetr && r.headers['x-svc-event'] === 'payment.settled'),
        ),
      );
      return new Set(received.map((r) => JSON.parse(r.rawBody).uetr as string));
    };
    expect(await arrived(endpointA.path, [uetrs.withinA, uetrs.outward, uetrs.between])).toEqual(
      new Set([uetrs.withinA, uetrs.outward, uetrs.between]),
    );
    expect(await arrived(endpointB.path, [uetrs.withinB, uetrs.between])).toEqual(
      new Set([uetrs.withinB, uetrs.between]),
    );
  });
});

describe('an endpoint an older svckit stored without an owner (D-142)', () => {
  const fresh = registerFreshDatabase('svckit_wh_owner');

  it("receives nothing, while an endpoint of the payment's institution does", async () => {
    const { db } = fresh.database;
    const debtor = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';
    // The insert of an svckit before D-142, which knew no account_ids column: the migration's default applies.
    const insert = (id: string, owner?: string) =>
      db.execute(sql`insert into webhook_endpoints (id, url, description, events, enabled, secret, created_at, updated_at${owner ? sql`, account_ids` : sql``})
        values (${id}, 'https://hooks.bank-a.example/svckit', '', '["payment.initiated"]'::jsonb, true, 'sealed', now(), now()${owner ? sql`, jsonb_build_array(${owner}::text)` : sql``})`);
    await insert('whe_01JD42C8E5F2G7H3J9K4M6N1PA');
    await insert('whe_01JD42C8E5F2G7H3J9K4M6N1PB', debtor);
    const payload = {
      event: 'payment.initiated',
      uetr: randomUUID(),
      txRef: 'PMT-20261121-4Z7K9M2Q8R1T',
      status: 'INITIATED',
      instrAmtCcy: 'SVC',
      instrAmt: 1,
      settlAmtCcy: 'SVC',
      settlAmt: 1,
      dbtrInst: 'SVCKGB2LXXX',
      cdtrInst: 'SVCKGB2LXXX',
    } as const;
    const emitted = await db.transaction((tx) =>
      emitEvent(tx, payload, { debtorAccountId: debtor, creditorAccountId: null }, new Date()),
    );
    expect(emitted.deliveries).toBe(1);
    const jobs = (await db.execute(
      sql`select endpoint_id from webhook_deliveries where event_id = ${emitted.eventId}`,
    )) as unknown as { rows: { endpoint_id: string }[] };
    expect(jobs.rows.map((r) => r.endpoint_id)).toEqual(['whe_01JD42C8E5F2G7H3J9K4M6N1PB']);
  });

  it("is never sent a job from before owners again: redelivery needs the payment on the endpoint's accounts", async () => {
    const { db } = fresh.database;
    const owned = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XC';
    await db.execute(sql`insert into webhook_endpoints (id, url, description, events, enabled, secret, created_at, updated_at, account_ids)
      values ('whe_01JD42C8E5F2G7H3J9K4M6N1PC', 'https://hooks.bank-a.example/svckit', '', '["payment.settled"]'::jsonb, true, 'sealed', now(), now(), jsonb_build_array(${owned}::text))`);
    // A dead job of an event stored before D-142 (no accounts: some institution's payment), and one of the endpoint's own.
    await db.execute(sql`insert into webhook_events (id, type, uetr, body, debtor_account_id, created_at) values
      ('e-old', 'payment.settled', 'u-old', '{}', null, now()), ('e-own', 'payment.settled', 'u-own', '{}', ${owned}, now())`);
    await db.execute(sql`insert into webhook_deliveries (id, event_id, endpoint_id, event, uetr, status, round, attempts, created_at) values
      ('d-old', 'e-old', 'whe_01JD42C8E5F2G7H3J9K4M6N1PC', 'payment.settled', 'u-old', 'dead', 1, 5, now()),
      ('d-own', 'e-own', 'whe_01JD42C8E5F2G7H3J9K4M6N1PC', 'payment.settled', 'u-own', 'dead', 1, 5, now())`);
    const deliveries = new DeliveryStore(db, systemClock);
    expect(await deliveries.redeliver('d-old')).toEqual({ notOwned: true });
    expect((await deliveries.find('d-old'))?.status).toBe('dead');
    expect(await deliveries.redeliver('d-own')).toMatchObject({ id: 'd-own', status: 'pending', round: 2 });
  });
});

describe('the migration that gives endpoints an owner (D-142)', () => {
  it('leaves no job queued by the earlier fan-out to every endpoint', async () => {
    const folder = new URL('../../src/storage/migrations/', import.meta.url);
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    const owners = files.findIndex((f) =>
      readFileSync(new URL(f, folder), 'utf8').includes('"webhook_endpoints" ADD COLUMN "account_ids"'),
    );
    expect(owners).toBeGreaterThan(0);
    const run = async (db: PGlite, file: string) => {
      for (const statement of readFileSync(new URL(file, folder), 'utf8').split('--> statement-breakpoint'))
        await db.exec(statement);
    };
    const db = new PGlite();
    try {
      for (const file of files.slice(0, owners)) await run(db, file);
      // What an older svckit left: an endpoint, an event and its jobs, one still pending, one delivered.
      await db.exec(`insert into webhook_endpoints (id, url, description, events, enabled, secret, created_at, updated_at)
        values ('whe_01JD42C8E5F2G7H3J9K4M6N1PA', 'https://hooks.bank-b.example/svckit', '', '["payment.settled"]', true, 'sealed', now(), now());
        insert into webhook_events (id, type, uetr, body, created_at) values ('e1', 'payment.settled', 'u1', '{}', now());
        insert into webhook_deliveries (id, event_id, endpoint_id, event, uetr, status, round, attempts, next_attempt_at, created_at)
        values ('d1', 'e1', 'whe_01JD42C8E5F2G7H3J9K4M6N1PA', 'payment.settled', 'u1', 'pending', 1, 2, now(), now()),
               ('d2', 'e1', 'whe_01JD42C8E5F2G7H3J9K4M6N1PA', 'payment.settled', 'u1', 'delivered', 1, 1, null, now());`);
      for (const file of files.slice(owners)) await run(db, file);
      const jobs = await db.query<{ id: string; status: string; next_attempt_at: Date | null }>(
        'select id, status, next_attempt_at from webhook_deliveries order by id',
      );
      expect(jobs.rows).toEqual([
        { id: 'd1', status: 'dead', next_attempt_at: null },
        { id: 'd2', status: 'delivered', next_attempt_at: null },
      ]);
      const endpoint = await db.query<{ account_ids: string[] }>('select account_ids from webhook_endpoints');
      expect(endpoint.rows).toEqual([{ account_ids: [] }]);
    } finally {
      await db.close();
    }
  });
});
