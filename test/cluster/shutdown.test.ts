// Graceful shutdown under load (D-264): three `svckit serve` instances on one PostgreSQL, one Redis and one chain
// node (harness.ts); clients send transfers continuously over kept-alive HTTPS connections to all three, and every
// transfer's payment events are delivered to a real HTTPS receiver here that answers each attempt after a delay,
// so attempts are in flight. The instance holding the leader lease gets SIGTERM. Checked: /readyz answers 503 at
// once; no client meets a reset on a request the instance accepted (a refused connection is tried on another
// instance, as a load balancer does); every acknowledged transfer confirms exactly once; the receiver gets each
// delivery exactly once per recorded attempt, and every delivery is delivered; the instance exits 0 within the
// bound, having finished everything in flight; another instance holds the lease well before the old one's expiry.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, apiKey, newAccount, type AccountView } from '../../conformance/checks/institutional/support.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { FOLLOW_POLL_MS } from '../../src/node/block-producer.ts';
import { chainNonce, startCluster, type Cluster, type Instance } from './harness.ts';

/** Long, so that a lease given up (D-264) and a lease that expired (D-183) are told apart by the takeover time. */
const LEASE_MS = 9000;
const SHUTDOWN_MS = 12_000;
const CLIENTS = 12;
/** How long the load runs before the signal, and after the instance has exited. */
const LOAD_BEFORE_MS = 3000;
const LOAD_AFTER_MS = 2000;
/** The receiver answers each attempt after 50 to 800 ms. */
const RECEIVER_DELAY_MS = [50, 800] as const;

let cluster: Cluster;
let db: pg.Client;
let receiver: https.Server;
let caDir: string;
/** Attempts the receiver got, per X-SVC-Delivery. */
const hits = new Map<string, number>();
/** Attempts the receiver has not answered yet. */
let unanswered = 0;

beforeAll(async () => {
  const tls = await receiverTls();
  caDir = mkdtempSync(path.join(tmpdir(), 'svckit-shutdown-ca-'));
  writeFileSync(path.join(caDir, 'ca.pem'), tls.caCert);
  receiver = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-svc-delivery']);
      hits.set(id, (hits.get(id) ?? 0) + 1);
      unanswered++;
      const [min, max] = RECEIVER_DELAY_MS;
      setTimeout(
        () => {
          unanswered--;
          res.writeHead(200).end();
        },
        min + Math.random() * (max - min),
      );
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cluster = await startCluster({
    instances: 3,
    env: {
      SVC_RATE_LIMIT: '0',
      SVC_RATE_LIMIT_ADMIN: '0',
      SVC_RATE_LIMIT_RPC: '0',
      SVC_LEADER_LEASE_MS: String(LEASE_MS),
      SVC_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS),
      SVC_WEBHOOK_CA_FILE: path.join(caDir, 'ca.pem'),
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await cluster?.stop();
  receiver?.closeAllConnections();
  receiver?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

/**
 * What one request came to: an answer, or a transport error, with whether it went on a kept-alive socket and
 * whether its connection ever completed the TLS handshake.
 */
type Outcome = { status: number; text: string } | { error: string; reused: boolean; handshook: boolean };

/** One HTTPS request through `agent` (kept-alive connections), never retried. */
function send(
  agent: https.Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let handshook = false;
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, reused: req.reusedSocket, handshook });
    const req = https.request(url, { method, agent, headers, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', failed);
    });
    req.on('socket', (socket) => {
      if (req.reusedSocket) handshook = true;
      else socket.once('secureConnect', () => (handshook = true));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    req.on('error', failed);
    req.end(body);
  });
}

/** Polls until `done` holds, every 200 ms, for at most `ms`. */
async function until(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('SIGTERM to one of three instances under load', () => {
  it('drains: readiness fails at once, no accepted request is reset, transfers and deliveries are each made once, exit 0, the lease moves', async () => {
    const admin = cluster.instances[0]!.target;
    const senders: AccountView[] = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => newAccount(cluster.instances[i % 3]!.target, { fund: '1000' })),
    );
    const recipient = await newAccount(admin);
    const token = await apiKey(
      admin,
      ['transfers:write', 'transfers:read'],
      senders.map((s) => s.id),
    );
    const { port } = receiver.address() as import('node:net').AddressInfo;
    const endpoint = await adminJson<{ id: string }>(
      admin,
      'POST',
      '/webhooks/endpoints',
      { url: `https://127.0.0.1:${port}/hooks`, accountIds: senders.map((s) => s.id) },
      201,
    );
    await adminJson(
      admin,
      'PUT',
      `/webhooks/endpoints/${endpoint.id}/secret`,
      { secret: `whsec_${crypto.randomUUID().replaceAll('-', '')}`, gracePeriodSeconds: 0 },
      200,
    );
    // The engine reads balances at the newest sealed block it knows (D-026): wait for one after the funding.
    const head = BigInt(await cluster.chain.call<Hex>('eth_blockNumber'));
    await until('the next block', async () => BigInt(await cluster.chain.call<Hex>('eth_blockNumber')) > head, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2 * FOLLOW_POLL_MS));

    const victim = (await cluster.leader())!;
    expect(victim).toBeDefined();
    const agents = cluster.instances.map(
      (instance) => new https.Agent({ keepAlive: true, maxSockets: 8, ca: instance.target.caCert }),
    );
    /** Instances that refused a connection: taken out of the rotation, as a load balancer does. */
    const refusing = new Set<number>();
    const acknowledged = new Map<string, { account: string; key: string }>();
    const answers: string[] = [];
    const transportErrors: Array<{
      key: string;
      error: string;
      reused: boolean;
      handshook: boolean;
      instance: number;
    }> = [];
    let refused = 0;
    let running = true;
    /** Transfer requests sent and not yet answered, per instance. */
    const inFlight = [0, 0, 0];

    const client = async (c: number) => {
      const sender = senders[c]!;
      for (let n = 0; running; n++) {
        for (let turn = 0; turn < 3; turn++) {
          const index = (c + n + turn) % 3;
          if (refusing.has(index)) continue;
          const instance: Instance = cluster.instances[index]!;
          const key = crypto.randomUUID();
          const body = JSON.stringify({ fromAccountId: sender.id, to: recipient.address, amount: '0.01' });
          inFlight[index]!++;
          const outcome = await send(
            agents[index]!,
            new URL('/wallet/api/v1/transfers', instance.url),
            'POST',
            {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
              authorization: `Bearer ${token}`,
              'idempotency-key': key,
            },
            body,
          );
          inFlight[index]!--;
          if ('error' in outcome) {
            if (outcome.error === 'ECONNREFUSED') {
              refused++;
              refusing.add(index);
              continue;
            }
            transportErrors.push({ key, ...outcome, instance: index });
            break;
          }
          if (outcome.status === 201) {
            const { txRef, status } = JSON.parse(outcome.text) as { txRef: string; status: string };
            if (status === 'failed') answers.push(`failed ${txRef}`);
            else acknowledged.set(txRef, { account: sender.id, key });
          } else answers.push(`${outcome.status} ${outcome.text.slice(0, 200)}`);
          break;
        }
      }
    };

    // A probe on its own kept-alive connection to the victim, as a load balancer's health check.
    const probeAgent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: victim.target.caCert });
    const probes: Array<{ sentAt: number; status: number | string }> = [];
    const probe = async () => {
      while (running && !refusing.has(victim.index)) {
        const sentAt = performance.now();
        const outcome = await send(probeAgent, new URL('/readyz', victim.url), 'GET', {});
        probes.push({ sentAt, status: 'error' in outcome ? outcome.error : outcome.status });
        if ('error' in outcome && outcome.error === 'ECONNREFUSED') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const load = Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), probe()]);
    await new Promise((resolve) => setTimeout(resolve, LOAD_BEFORE_MS));
    // The signal goes at a moment the instance has transfer requests to finish and the receiver attempts to answer.
    for (const giveUp = performance.now() + 30_000; performance.now() < giveUp; ) {
      if (inFlight[victim.index]! >= 2 && unanswered > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const beforeSignal = acknowledged.size;
    const signalAt = performance.now();
    const atSignal = { requests: inFlight[victim.index]!, attempts: unanswered };
    const exit = await victim.terminate();
    const exitedAt = performance.now();
    // D-264: the lease was given up before the exit; a follower takes it at its next try (every LEASE_MS / 3).
    let successor: Instance | undefined;
    await until(
      'another instance holds the lease',
      async () => {
        successor = await cluster.leader();
        return successor !== undefined && successor.index !== victim.index;
      },
      LEASE_MS * 2,
    );
    const takeoverMs = performance.now() - exitedAt;
    await new Promise((resolve) => setTimeout(resolve, LOAD_AFTER_MS));
    running = false;
    await load;
    for (const agent of [...agents, probeAgent]) agent.destroy();
    const before = probes.filter((p) => p.sentAt + 50 < signalAt);
    const after = probes.filter((p) => p.sentAt > signalAt);

    const summary = victim
      .stderr()
      .split('\n')
      .find((line) => line.includes('svckit serve: stopped in'));
    console.warn(
      `shutdown: at the signal ${atSignal.requests} transfer requests in flight to the instance, ${atSignal.attempts} ` +
        `webhook attempts unanswered (all instances); exit ${exit.code ?? exit.signal} ${exit.ms.toFixed(0)} ms after SIGTERM (bound ${SHUTDOWN_MS} ms); ` +
        `"${summary}"; lease taken over ${takeoverMs.toFixed(0)} ms after the exit; ${beforeSignal} transfers acknowledged ` +
        `before the signal, ${acknowledged.size} in all; ${refused} connections refused and tried elsewhere; ` +
        `transport errors ${JSON.stringify(transportErrors)}; readiness after the signal ${after.map((p) => p.status).join(',')}`,
    );
    // Under load: the instance had requests to finish, and the receiver attempts to answer.
    expect(atSignal.requests).toBeGreaterThan(0);
    expect(atSignal.attempts).toBeGreaterThan(0);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(SHUTDOWN_MS);
    expect(successor!.index).not.toBe(victim.index);
    // An expired lease could be taken only LEASE_MS - LEASE_MS / 3 after the last renewal at the earliest.
    expect(takeoverMs).toBeLessThan(LEASE_MS / 3 + 1500);
    expect(refusing.has(victim.index)).toBe(true);
    expect(answers).toEqual([]);

    // Readiness: 200 before the signal; after it, a probe already in flight when the drain began may still get its
    // 200 (with Connection: close); from the first other answer on, 503 or a refused connection, never 200 again.
    // (That a probe on a kept-alive connection gets 503 at once is checked in test/server/shutdown.test.ts.)
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((p) => p.status === 200)).toBe(true);
    const firstFailing = after.findIndex((p) => p.status !== 200);
    expect(firstFailing).toBeGreaterThanOrEqual(0);
    expect(after.slice(firstFailing).every((p) => p.status === 503 || p.status === 'ECONNREFUSED')).toBe(true);
    expect(after.at(-1)?.status).toBe('ECONNREFUSED');

    // A transport error is allowed only on a request the instance never took up: its Idempotency-Key was never
    // claimed (D-046), and either it went on a kept-alive connection the instance closed as idle while the request
    // was on its way, or its connection never completed the TLS handshake (it waited in the kernel's queue when
    // the listener closed). None may hit a request the instance accepted.
    const claimed = new Set(
      (
        await db.query<{ key: string }>('select key from idempotency_keys where key = any($1)', [
          transportErrors.map((e) => e.key),
        ])
      ).rows.map((r) => r.key),
    );
    expect(transportErrors.filter((e) => claimed.has(e.key) || (e.handshook && !e.reused))).toEqual([]);

    // Every acknowledged transfer confirms exactly once: one record per key, confirmed, its transaction mined
    // once at its nonce; no account has a gap or an extra transaction on chain.
    const accountIds = senders.map((s) => s.id);
    await until(
      'every record settled',
      async () =>
        (
          await db.query<{ n: string }>(
            "select count(*) as n from transfers where account_id = any($1) and status = 'pending'",
            [accountIds],
          )
        ).rows[0]!.n === '0',
      120_000,
    );
    const rows = (
      await db.query<{ tx_ref: string; account_id: string; nonce: string; tx_hash: Hex; status: string }>(
        'select tx_ref, account_id, nonce, tx_hash, status from transfers where account_id = any($1)',
        [accountIds],
      )
    ).rows;
    const byRef = new Map(rows.map((r) => [r.tx_ref, r]));
    for (const [txRef, sent] of acknowledged) {
      expect(byRef.get(txRef)?.status, txRef).toBe('confirmed');
      expect(byRef.get(txRef)?.account_id).toBe(sent.account);
    }
    expect(rows.filter((r) => r.status !== 'confirmed')).toEqual([]);
    for (const sender of senders) {
      const own = rows.filter((r) => r.account_id === sender.id);
      const nonces = own.map((r) => Number(r.nonce)).sort((a, b) => a - b);
      expect(nonces).toEqual(nonces.map((_, i) => i));
      expect(await chainNonce(cluster.chain, sender.address)).toBe(own.length);
      const mined = await cluster.chain.batchResults<{ nonce: Hex; blockNumber: Hex | null }>(
        own.map((r) => ({ method: 'eth_getTransactionByHash', params: [r.tx_hash] })),
      );
      for (const [i, tx] of mined.entries()) {
        expect(tx.blockNumber).not.toBeNull();
        expect(Number(BigInt(tx.nonce))).toBe(Number(own[i]!.nonce));
      }
    }
    // Records no client saw acknowledged can only be requests whose answer never arrived: none here.
    expect(rows.length).toBe(acknowledged.size);

    // Every delivery reaches a final state, and the receiver got it exactly once per recorded attempt.
    await until(
      'every delivery final',
      async () =>
        (
          await db.query<{ n: string }>(
            "select count(*) as n from webhook_deliveries where endpoint_id = $1 and status = 'pending'",
            [endpoint.id],
          )
        ).rows[0]!.n === '0',
      120_000,
    );
    const deliveries = (
      await db.query<{ id: string; status: string; attempts: string }>(
        `select d.id, d.status, (select count(*) from webhook_attempts a where a.delivery_id = d.id) as attempts
           from webhook_deliveries d where d.endpoint_id = $1`,
        [endpoint.id],
      )
    ).rows;
    // payment.initiated and payment.settled for every transfer.
    expect(deliveries.length).toBe(2 * acknowledged.size);
    expect(deliveries.filter((d) => d.status !== 'delivered')).toEqual([]);
    const mismatched = deliveries.filter((d) => (hits.get(d.id) ?? 0) !== Number(d.attempts));
    expect(mismatched).toEqual([]);
    expect([...hits.keys()].every((id) => deliveries.some((d) => d.id === id))).toBe(true);
    // The instance itself found nothing left unfinished at the bound.
    expect(summary).toMatch(/every request in flight finished/);
    console.warn(
      `shutdown: ${acknowledged.size} transfers confirmed once each; ${deliveries.length} deliveries, ` +
        `${[...hits.values()].reduce((a, b) => a + b, 0)} attempts received, each once`,
    );
  });
});
