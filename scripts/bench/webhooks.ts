/**
 * `npm run bench -- webhooks`: the webhook dispatcher on embedded PGlite, sending to a local
 * HTTPS receiver that runs in a worker thread (so the receiver's work is not billed to the dispatcher).
 *
 * 1. Throughput: N delivery jobs are stored through the outbox (untimed), then the dispatcher is started at
 *    concurrency 1 and 64 and timed until every job is recorded delivered (claim, sign, POST over keep-alive
 *    TLS, record). Target: at least 1,000 deliveries per second.
 * 2. Schedule accuracy: jobs whose first attempt gets a 500 are retried; the clock (an OffsetClock: real time
 *    plus what the benchmark moves) is moved to each retry's due time, and the observed delay between the end
 *    of the failed attempt and the start of the next is compared with the target delay (30 s, 5 min).
 *
 * Settings: BENCH_DELIVERIES (default 3000 at concurrency 64, a sixth of it at 1), BENCH_RETRIES (default 200).
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { and, count, eq } from 'drizzle-orm';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { OffsetClock } from '../../src/clock.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { webhookAttempts, webhookDeliveries } from '../../src/storage/schema.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { EndpointStore } from '../../src/webhooks/endpoints.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';
import { figure, machine, postgresVersion, reportResult } from './result.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 3000);
const RETRIES = Number(process.env.BENCH_RETRIES ?? 200);

/** The receiver: 200 on /ok; on /fail-once a 500 to the first attempt of each delivery id, then 200. */
const RECEIVER = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const seen = new Set();
const server = https.createServer({ cert: workerData.cert, key: workerData.key }, (req, res) => {
  req.resume();
  req.on('end', () => {
    const id = req.headers['x-svc-delivery'];
    let status = 200;
    if (req.url === '/fail-once' && !seen.has(id)) { seen.add(id); status = 500; }
    res.writeHead(status).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

const tls = await receiverTls();
const worker = new Worker(RECEIVER, { eval: true, workerData: { cert: tls.cert, key: tls.key } });
const port = await new Promise<number>((resolve) => worker.once('message', resolve));
// DATABASE_URL: the same on PostgreSQL (a throw-away database: the benchmark leaves its rows).
const database = await openDatabase({
  dataDir: null,
  ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
});
const db = database.db;
const clock = new OffsetClock();
// Secrets are sealed under a KEK as in the stack (D-130): an in-memory keyring.
const secrets = new WebhookSecretBox(Keyring.open({ dataDir: null }));
const endpoints = new EndpointStore(db, clock, secrets);

/** The debtor account of every seeded payment, and the endpoint's owner (D-142). */
const BENCH_ACCOUNT = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';

async function endpointFor(path: string): Promise<string> {
  const endpoint = await endpoints.create({
    url: `https://127.0.0.1:${port}${path}`,
    events: ['payment.settled'],
    accountIds: [BENCH_ACCOUNT],
  });
  await endpoints.setSecret(endpoint.id, 'bench-signing-secret-0123456789abcdefgh', 0);
  return endpoint.id;
}

/** Stores `n` payment.settled events, each fanned out to the one endpoint subscribed to them. */
async function seed(n: number): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    await db.transaction(async (tx) => {
      for (let j = i; j < Math.min(n, i + 500); j++) {
        await emitEvent(
          tx,
          {
            event: 'payment.settled',
            uetr: crypto.randomUUID(),
            txRef: 'PMT-20261121-4Z7K9M2Q8R1T',
            status: 'SETTLED',
            instrAmtCcy: 'EUR',
            instrAmt: 1250.5,
            settlAmtCcy: 'SVC',
            settlAmt: 1313.02,
            onChainTxHash: `0x${'ab'.repeat(32)}`,
            sttlmTm: '2026-11-21T09:30:04.000Z',
            dbtrInst: 'DEUTDEFFXXX',
            cdtrInst: 'SVCKGB2LXXX',
          },
          { debtorAccountId: BENCH_ACCOUNT, creditorAccountId: null },
          new Date(clock.now()),
        );
      }
    });
  }
}

const pending = async () =>
  (await db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending')))[0]!.n;

function dispatcher(concurrency: number): WebhookDispatcher {
  // D-143: the bench's receiver listens on loopback.
  const transport = new WebhookTransport(clock, { ca: [tls.caCert], maxSockets: concurrency, allowPrivate: true });
  // The production poll interval (100 ms): an idle dispatcher notices a job falling due within it.
  return new WebhookDispatcher(db, clock, transport, { concurrency, secrets, onError: (e) => console.error(e) });
}

async function throughput(
  concurrency: number,
  n: number,
): Promise<{ concurrency: number; deliveries: number; seconds: number; perSecond: number }> {
  const endpointId = await endpointFor('/ok');
  await seed(n);
  const d = dispatcher(concurrency);
  const started = performance.now();
  d.start();
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  await d.stop();
  const delivered = (
    await db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'delivered')))
  )[0]!.n;
  await endpoints.delete(endpointId);
  return {
    concurrency,
    deliveries: delivered,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Math.round(delivered / seconds),
  };
}

/** Observed minus target delay (ms) of attempt `number` for every job of the endpoint. */
async function lateness(number: number): Promise<number[]> {
  const rows = await db.select().from(webhookAttempts);
  const byId = Map.groupBy(rows, (r) => r.deliveryId);
  const out: number[] = [];
  for (const attempts of byId.values()) {
    const previous = attempts.find((a) => a.number === number - 1);
    const next = attempts.find((a) => a.number === number);
    if (previous && next)
      out.push(
        next.startedAt.getTime() - (previous.startedAt.getTime() + previous.durationMs) - RETRY_DELAYS_MS[number - 1]!,
      );
  }
  return out.sort((a, b) => a - b);
}

async function accuracy(n: number) {
  await db.delete(webhookAttempts);
  const endpointId = await endpointFor('/fail-once');
  await seed(n);
  const d = dispatcher(64);
  d.start();
  // Attempt 1 of every job fails; wait until all are recorded, then move the clock to their due time.
  const failedOnce = async () => (await db.select({ n: count() }).from(webhookAttempts))[0]!.n;
  while ((await failedOnce()) < n) await new Promise((resolve) => setTimeout(resolve, 20));
  // Jump to 0.5 s before the first retry falls due; from there real time makes each one due on its own, so the
  // lateness measured is the dispatcher's (polling, claiming), not the benchmark's jump.
  const ends = (await db.select().from(webhookAttempts)).map((a) => a.startedAt.getTime() + a.durationMs);
  clock.advance(Math.min(...ends) + RETRY_DELAYS_MS[1] - 500 - clock.now());
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await d.stop();
  await endpoints.delete(endpointId);
  const late = await lateness(2);
  const q = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))]!;
  return {
    retry: 'attempt 2 (target 30 s after attempt 1 ended)',
    jobs: late.length,
    earliestMs: late[0],
    p50Ms: q(0.5),
    p99Ms: q(0.99),
    maxMs: late.at(-1),
    early: late.filter((l) => l < 0).length,
  };
}

const results = [await throughput(1, Math.max(100, Math.round(DELIVERIES / 6))), await throughput(64, DELIVERIES)];
console.log('webhook deliveries per second (PGlite, HTTPS keep-alive to a local receiver in a worker thread):');
console.table(results);
const schedule = await accuracy(RETRIES);
console.log(
  'schedule accuracy (observed minus target delay, on the injectable clock running in real time near the due time):',
);
console.table([schedule]);
console.log(JSON.stringify({ throughput: results, schedule }));
reportResult({
  bench: 'webhooks',
  machine: machine(await postgresVersion(database)),
  figures: [
    ...results.map((r) =>
      figure(
        `deliveries per second, concurrency ${r.concurrency} (${r.deliveries} jobs)`,
        r.perSecond,
        'deliveries/s',
        r.concurrency === 64 ? { limit: 1000, comparison: 'at-least' } : undefined,
      ),
    ),
    figure(`retry lateness p50, ${schedule.retry}`, schedule.p50Ms, 'ms'),
    figure(`retry lateness p99, ${schedule.retry}`, schedule.p99Ms, 'ms'),
    figure('retries made early (before their due time)', schedule.early, 'retries', {
      limit: 0,
      comparison: 'at-most',
    }),
  ],
  notes: [`database: ${database.engine}`],
});
await worker.terminate();
await database.close();
