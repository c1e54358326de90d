/**
 * `npm run bench -- institutional`: the institutional REST API over real TLS (X25519MLKEM768,
 * keep-alive connections) on the in-process reference stack, the per-IP rate limit lifted (SVC_RATE_LIMIT=0).
 *
 * 1. GET /accounts/{id} with a bearer svc_ key against a per-request SVC-MLDSA signature: p50, p99 and
 *    requests per second at concurrency 32 (and 1). Every ML-DSA request carries its own fresh signature
 *    (D-076 refuses replays); they are signed before the run, so the client's signing time is not counted.
 *    Targets: the CPU SVC-MLDSA authentication adds over a remembered bearer key is at most 1.3x the CPU of
 *    one OpenSSL ML-DSA-65 verification measured in the same run (auth-cpu.ts); at concurrency 1 the signed
 *    p50 is at most the bearer p50 + 0.4 ms.
 * 2. POST /transfers sustained from many accounts at once, through to confirmation on Anvil, then checked:
 *    for each sending account the nonces of its transfers on the chain are exactly 0..n-1, and every
 *    transfer is confirmed. Target: at least 200 transfers per second accepted, zero nonce gaps.
 *
 * The load generator runs in a worker thread (the server keeps the main thread). Bearer and ML-DSA runs
 * alternate and the median run of each is reported, since the machine may be shared. Settings:
 * BENCH_REQUESTS (GET requests per run at concurrency 32, default 3000), BENCH_ROUNDS (alternating runs,
 * default 3), BENCH_TRANSFERS (default 3000), BENCH_ACCOUNTS (sending accounts, default 32),
 * BENCH_TRANSFER_CONCURRENCY (default 64), SVC_BLOCK_TIME (default 0: a block as soon as transactions
 * arrive) and DATABASE_URL (PostgreSQL instead of PGlite).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { and, eq, inArray } from 'drizzle-orm';
import type { Hex } from 'viem';
import { mldsaAuthorization } from '../../src/client/mldsa-signer.ts';
import { OffsetClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { mlDsa65 } from '../../src/crypto/index.ts';
import { parseAmount } from '../../src/ledger/money.ts';
import { listen } from '../../src/server/main.ts';
import { transfers } from '../../src/storage/schema.ts';
import { measureAuthCpu } from './auth-cpu.ts';
import { type BenchFigure, figure, machine, postgresVersion, reportResult } from './result.ts';

const GETS = Number(process.env.BENCH_REQUESTS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 3000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 32);
const TRANSFER_CONCURRENCY = Number(process.env.BENCH_TRANSFER_CONCURRENCY ?? 64);
const PERMISSIONS = ['accounts:read', 'transfers:read', 'transfers:write'] as const;

type Stats = {
  p50: number;
  p99: number;
  rps: number;
  n: number;
  wallMs: number;
  answers?: string[];
  cpuUs?: number;
  mainUs?: number;
};
/** One load job: `headers[i]` (or `header`) authorises request i; `bodies[i]` makes it a POST. */
type Job = {
  url: string;
  ca: string;
  total: number;
  concurrency: number;
  header?: string;
  headers?: string[];
  bodies?: string[];
  /** An extra header of this text (D-196: a bearer request as large as a signed one). */
  padding?: string;
  expect: number;
  keepAnswers?: boolean;
};

/** Plain JavaScript evaluated by the worker: node:https with a keep-alive agent, one request per slot. */
const LOAD_GENERATOR = `
const { parentPort } = require('node:worker_threads');
const https = require('node:https'), { performance } = require('node:perf_hooks');
let agent;
function send(job, i) {
  const headers = { authorization: job.headers ? job.headers[i] : job.header };
  if (job.padding) headers['x-padding'] = job.padding;
  const body = job.bodies ? job.bodies[i % job.bodies.length] : undefined;
  if (body !== undefined) { headers['content-type'] = 'application/json'; headers['content-length'] = Buffer.byteLength(body); }
  return new Promise((resolve, reject) => {
    const req = https.request(job.url, { method: body === undefined ? 'GET' : 'POST', agent, headers }, (res) => {
      let text = ''; res.setEncoding('utf8'); res.on('data', (c) => (text += c));
      res.on('end', () => res.statusCode === job.expect ? resolve(text) : reject(new Error('HTTP ' + res.statusCode + ' ' + text.slice(0, 300))));
    });
    req.on('error', reject); req.end(body);
  });
}
async function measure(job) {
  agent = agent || new https.Agent({ keepAlive: true, maxSockets: 128, ca: job.ca });
  const latencies = [], answers = []; let next = 0; const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, async () => {
    while (next < job.total) { const i = next++; const t0 = performance.now(); const text = await send(job, i); latencies.push(performance.now() - t0); if (job.keepAnswers) answers.push(text); }
  }));
  const wallMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), rps: (latencies.length / wallMs) * 1000, n: latencies.length, wallMs, answers: job.keepAnswers ? answers : undefined };
}
parentPort.on('message', (job) => measure(job).then((stats) => parentPort.postMessage({ stats }), (e) => parentPort.postMessage({ error: String(e && e.message || e) })));
`;

const worker = new Worker(LOAD_GENERATOR, { eval: true });

/**
 * Runs one load job. Per request, in microseconds: `cpuUs` is this process's CPU time (every thread: server,
 * load generator, thread pool, PGlite; PostgreSQL and Anvil are other processes and not in it), `mainUs`
 * the server's main thread's (the thread that serves every request).
 */
function measure(job: Job): Promise<Stats> {
  const cpu = process.cpuUsage();
  const main = process.threadCpuUsage();
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { stats?: Stats; error?: string }) => {
      if (!m.stats) return reject(new Error(`benchmark request failed: ${m.error}`));
      const used = process.cpuUsage(cpu);
      const mainUsed = process.threadCpuUsage(main);
      resolve({
        ...m.stats,
        cpuUs: (used.user + used.system) / m.stats.n,
        mainUs: (mainUsed.user + mainUsed.system) / m.stats.n,
      });
    });
    worker.postMessage(job);
  });
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-bench-'));
const config = loadConfig({
  SVC_BLOCK_TIME: '0',
  ...process.env,
  SVC_DATA_DIR: dataDir,
  SVC_BASE_PORT: '0',
  SVC_WALLET_PORT: '0',
  SVC_SITE_PORT: '0',
  SVC_RATE_LIMIT: '0',
});
const clock = new OffsetClock();
const { stack, ready } = await listen(config, { clock, logLevel: 'silent' });
const { ledger } = stack;
const ca = stack.tls.caCert;
const base = `${ready.base}/wallet/api/v1`;
const ms = (n: number) => n.toFixed(3);
const figures: BenchFigure[] = [];

/** Accounts and credentials straight through the ledger (the admin API is not what is measured). */
async function setup() {
  const now = new Date(clock.now());
  const accounts = [];
  for (let i = 0; i < ACCOUNTS + 1; i++) {
    accounts.push(
      await ledger.accounts.create(
        {
          email: `bench-${i}@bank.example`,
          dailyLimitWei: parseAmount('l', '100000000'),
          singleLimitWei: parseAmount('l', '1000000'),
        },
        now,
      ),
    );
  }
  const { token } = await ledger.credentials.createApiKey({
    name: 'bench',
    permissions: [...PERMISSIONS],
    accountIds: null,
  });
  const keys = mlDsa65.keygen();
  await ledger.credentials.registerMldsaKey(keys.publicKey, {
    name: 'bench',
    permissions: [...PERMISSIONS],
    accountIds: null,
  });
  return { senders: accounts.slice(0, ACCOUNTS), recipient: accounts[ACCOUNTS]!, token, keys };
}

/** Funds the senders from Anvil's genesis accounts (anvil_setBalance: the faucet's path is not what is measured). */
async function fund(addresses: string[], units: string) {
  const wei = `0x${parseAmount('amount', units).toString(16)}`;
  await stack.chain.upstream.batchResults(addresses.map((a) => ({ method: 'anvil_setBalance', params: [a, wei] })));
  await stack.chain.producer?.requestBlock();
}

/** The median of `runs` by p50 (the machine may be shared: runs alternate and the middle one is reported). */
const median = (runs: Stats[]) => [...runs].sort((a, b) => a.p50 - b.p50)[Math.floor(runs.length / 2)]!;

async function authBenchmark(accountId: string, token: string, keys: ReturnType<typeof mlDsa65.keygen>) {
  const url = `${base}/accounts/${accountId}`;
  const target = new URL(url).pathname;
  const rows: string[] = [];
  let ratio32 = 0;
  let paddedP50 = 0;
  // Every ML-DSA request gets its own signature (D-076), signed just before its run (they stay within ±30 s).
  const signed = (n: number) => Array.from({ length: n }, () => mldsaAuthorization(keys, 'GET', target, clock.now()));
  for (const concurrency of [32, 1]) {
    const total = concurrency === 32 ? GETS : Math.ceil(GETS / 4);
    // Warm-up: connections, JIT, caches.
    await measure({ url, ca, total: 500, concurrency, header: `Bearer ${token}`, expect: 200 });
    await measure({ url, ca, total: 500, concurrency, headers: signed(500), expect: 200 });
    const bearerRuns: Stats[] = [];
    const mldsaRuns: Stats[] = [];
    const paddedRuns: Stats[] = [];
    // D-196: a bearer request carrying as many header bytes as a signed one (an extra header as long as the
    // SVC-MLDSA Authorization value), so the difference left is the signature's work, not the transport's.
    const padding = 'p'.repeat(signed(1)[0]!.length - 'x-padding: '.length);
    for (let round = 0; round < ROUNDS; round++) {
      bearerRuns.push(await measure({ url, ca, total, concurrency, header: `Bearer ${token}`, expect: 200 }));
      mldsaRuns.push(await measure({ url, ca, total, concurrency, headers: signed(total), expect: 200 }));
      if (concurrency === 1)
        paddedRuns.push(
          await measure({ url, ca, total, concurrency, header: `Bearer ${token}`, padding, expect: 200 }),
        );
    }
    const [bearer, mldsa] = [median(bearerRuns), median(mldsaRuns)];
    if (concurrency === 1) {
      const padded = median(paddedRuns);
      paddedP50 = padded.p50;
      figures.push(
        figure(`GET /accounts/{id} bearer + ${padding.length}-character header, concurrency 1: p50`, padded.p50, 'ms'),
      );
      rows.push(
        `| Bearer svc_ + ${padding.length}-character header | 1 | ${padded.n} x ${ROUNDS} | ${ms(padded.p50)} | ${ms(padded.p99)} | ${Math.round(padded.rps)} | ${Math.round(padded.cpuUs!)} | ${Math.round(padded.mainUs!)} | ${(padded.p50 / bearer.p50).toFixed(2)}x |`,
      );
    }
    const ratio = mldsa.p50 / bearer.p50;
    if (concurrency === 32) ratio32 = ratio;
    for (const [name, run] of [
      ['bearer', bearer],
      ['SVC-MLDSA', mldsa],
    ] as const) {
      figures.push(
        figure(`GET /accounts/{id} ${name}, concurrency ${concurrency}: req/s`, run.rps, 'req/s'),
        figure(`GET /accounts/{id} ${name}, concurrency ${concurrency}: process CPU per request`, run.cpuUs!, 'µs'),
      );
    }
    figures.push(figure(`GET /accounts/{id} bearer, concurrency ${concurrency}: p50`, bearer.p50, 'ms'));
    figures.push(
      figure(
        `GET /accounts/{id} SVC-MLDSA, concurrency ${concurrency}: p50`,
        mldsa.p50,
        'ms',
        concurrency === 1
          ? { limit: bearer.p50 + 0.4, comparison: 'at-most', description: 'bearer p50 + 0.4 ms' }
          : undefined,
      ),
    );
    rows.push(
      `| Bearer svc_ | ${concurrency} | ${bearer.n} x ${ROUNDS} | ${ms(bearer.p50)} | ${ms(bearer.p99)} | ${Math.round(bearer.rps)} | ${Math.round(bearer.cpuUs!)} | ${Math.round(bearer.mainUs!)} | 1.00x |`,
    );
    rows.push(
      `| SVC-MLDSA | ${concurrency} | ${mldsa.n} x ${ROUNDS} | ${ms(mldsa.p50)} | ${ms(mldsa.p99)} | ${Math.round(mldsa.rps)} | ${Math.round(mldsa.cpuUs!)} | ${Math.round(mldsa.mainUs!)} | ${ratio.toFixed(2)}x |`,
    );
  }
  console.log(
    '| GET /accounts/{id} (median of alternating runs) | conc. | requests | p50 ms | p99 ms | req/s | process CPU µs/req | main thread CPU µs/req | p50 / bearer |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  return { ratio32, paddedP50 };
}

async function transferBenchmark(
  senders: { id: string; address: string }[],
  recipient: { address: string },
  token: string,
) {
  const bodies = Array.from({ length: TRANSFERS }, (_, i) =>
    JSON.stringify({ fromAccountId: senders[i % senders.length]!.id, to: recipient.address, amount: '0.01' }),
  );
  const started = performance.now();
  const accepted = await measure({
    url: `${base}/transfers`,
    ca,
    total: TRANSFERS,
    concurrency: TRANSFER_CONCURRENCY,
    header: `Bearer ${token}`,
    bodies,
    expect: 201,
    keepAnswers: true,
  });
  const created = accepted.answers!.map(
    (text) => JSON.parse(text) as { ok: boolean; txRef: string; txHash: Hex; status: string },
  );
  // Through to confirmation: the confirmer settles pending records as blocks are sealed.
  for (;;) {
    const pending = await stack.database.db.$count(
      transfers,
      and(
        eq(transfers.status, 'pending'),
        inArray(
          transfers.accountId,
          senders.map((s) => s.id),
        ),
      ),
    );
    if (pending === 0) break;
    if (performance.now() - started > 600_000) throw new Error(`${pending} transfers still pending after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const confirmedMs = performance.now() - started;
  return { accepted, created, confirmedMs };
}

/** For each sender, the nonces of its transfers on the chain must be exactly 0..n-1 and every record confirmed. */
async function verify(
  senders: { id: string; address: string }[],
  created: { txRef: string; txHash: Hex; ok: boolean }[],
) {
  const problems: string[] = [];
  if (created.some((c) => !c.ok)) problems.push(`${created.filter((c) => !c.ok).length} transfers answered ok:false`);
  const txs: { from: Hex; nonce: Hex }[] = [];
  for (let i = 0; i < created.length; i += 500) {
    txs.push(
      ...(await stack.chain.upstream.batchResults<{ from: Hex; nonce: Hex }>(
        created.slice(i, i + 500).map((c) => ({ method: 'eth_getTransactionByHash', params: [c.txHash] })),
      )),
    );
  }
  const byAccount = new Map<string, number[]>();
  for (const tx of txs)
    byAccount.set(tx.from.toLowerCase(), [...(byAccount.get(tx.from.toLowerCase()) ?? []), Number(BigInt(tx.nonce))]);
  for (const sender of senders) {
    const nonces = (byAccount.get(sender.address.toLowerCase()) ?? []).sort((a, b) => a - b);
    const gap = nonces.findIndex((n, i) => n !== i);
    if (gap !== -1)
      problems.push(
        `${sender.id}: nonces ${nonces.slice(Math.max(0, gap - 2), gap + 3).join(',')}… are not 0..${nonces.length - 1}`,
      );
    const count = Number(
      BigInt(await stack.chain.upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])),
    );
    if (count !== nonces.length)
      problems.push(`${sender.id}: the chain counts ${count} transactions, the API created ${nonces.length}`);
  }
  // This run's senders only: a PostgreSQL database given by DATABASE_URL may hold earlier runs' records.
  const rows = await stack.database.db
    .select({ status: transfers.status })
    .from(transfers)
    .where(
      inArray(
        transfers.accountId,
        senders.map((s) => s.id),
      ),
    );
  const statuses = new Map<string, number>();
  for (const r of rows) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  if (statuses.get('confirmed') !== created.length)
    problems.push(
      `records by status: ${JSON.stringify(Object.fromEntries(statuses))}; expected ${created.length} confirmed`,
    );
  return problems;
}

console.log(
  `svckit institutional benchmark: Node ${process.version}, OpenSSL ${process.versions.openssl}, ${stack.database.engine}, block time ${config.blockTimeSeconds} s, TLS X25519MLKEM768 keep-alive, rate limit lifted`,
);
try {
  const { senders, recipient, token, keys } = await setup();
  await fund(
    senders.map((s) => s.address),
    '1000',
  );
  const cpu = await measureAuthCpu(
    ledger.credentials,
    clock,
    token,
    keys,
    new URL(`${base}/accounts/${senders[0]!.id}`).pathname,
  );
  console.log(
    `| authentication CPU per call (32 concurrent, in process) | bearer (remembered) | SVC-MLDSA | added | one OpenSSL ML-DSA-65 verify | added / verify |\n|---|---:|---:|---:|---:|---:|\n| µs | ${cpu.bearerUs.toFixed(1)} | ${cpu.mldsaUs.toFixed(1)} | ${cpu.extraUs.toFixed(1)} | ${cpu.verifyUs.toFixed(1)} | ${cpu.ratio.toFixed(2)}x |\n`,
  );
  figures.push(
    figure('authentication CPU per call, bearer (remembered key)', cpu.bearerUs, 'µs'),
    figure('authentication CPU per call, SVC-MLDSA', cpu.mldsaUs, 'µs'),
    figure('one OpenSSL ML-DSA-65 verification, CPU', cpu.verifyUs, 'µs'),
    figure('SVC-MLDSA added CPU / one verification', cpu.ratio, 'x', { limit: 1.3, comparison: 'at-most' }),
  );
  console.log(
    `| SVC-MLDSA steps, CPU per call (alone, in process) | signature hex and message bytes | registration lookup (D-129 memory, key hashed) | signature digest and replay memory |\n|---|---:|---:|---:|\n| µs | ${cpu.decodeUs.toFixed(1)} | ${cpu.lookupUs.toFixed(1)} | ${cpu.replayUs.toFixed(1)} |\n`,
  );
  figures.push(
    figure('SVC-MLDSA step CPU: signature hex and message bytes', cpu.decodeUs, 'µs'),
    figure('SVC-MLDSA step CPU: registration lookup (remembered, D-129)', cpu.lookupUs, 'µs'),
    figure('SVC-MLDSA step CPU: signature digest and replay memory', cpu.replayUs, 'µs'),
  );
  const { ratio32: ratio, paddedP50 } = await authBenchmark(senders[0]!.id, token, keys);
  const c1Signed = figures.find((f) => f.name.endsWith('SVC-MLDSA, concurrency 1: p50'))!;
  // D-196: the same allowance over a bearer request as large as the signed one (the header's transport removed).
  figures.push(
    figure(
      'GET /accounts/{id} SVC-MLDSA, concurrency 1: p50 against a bearer request of equal size',
      c1Signed.value,
      'ms',
      {
        limit: paddedP50 + 0.4,
        comparison: 'at-most',
        description: 'padded bearer p50 + 0.4 ms, D-196',
      },
    ),
  );
  console.log('');
  const { accepted, created, confirmedMs } = await transferBenchmark(senders, recipient, token);
  const problems = await verify(senders, created);
  console.log(
    `| POST /transfers | transfers | accounts | conc. | p50 ms | p99 ms | accepted/s | through confirmation/s | nonce gaps |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| bearer | ${created.length} | ${senders.length} | ${TRANSFER_CONCURRENCY} | ${ms(accepted.p50)} | ${ms(accepted.p99)} | ${Math.round(accepted.rps)} | ${Math.round((created.length / confirmedMs) * 1000)} | ${problems.length ? 'see below' : 0} |`,
  );
  for (const p of problems) console.log(`  problem: ${p}`);
  const rateOk = accepted.rps >= 200;
  figures.push(
    figure('GET /accounts/{id} SVC-MLDSA p50 / bearer p50, concurrency 32', ratio, 'x'),
    figure('POST /transfers accepted per second', accepted.rps, 'transfers/s', { limit: 200, comparison: 'at-least' }),
    figure('POST /transfers through confirmation per second', (created.length / confirmedMs) * 1000, 'transfers/s'),
    figure('POST /transfers p50', accepted.p50, 'ms'),
    figure('nonce gaps and unconfirmed transfers', problems.length, 'problems', { limit: 0, comparison: 'at-most' }),
  );
  const c1 = figures.find((f) => f.name.endsWith('SVC-MLDSA, concurrency 1: p50'))!;
  console.log(
    `\ntargets: SVC-MLDSA added CPU / verify = ${cpu.ratio.toFixed(2)}x (<= 1.3x: ${cpu.ratio <= 1.3 ? 'met' : 'MISSED'}); ` +
      `SVC-MLDSA p50 at concurrency 1 = ${ms(c1.value)} ms (<= bearer + 0.4 = ${ms(c1.target!.limit)}: ${c1.verdict}; <= padded bearer + 0.4 = ${ms(paddedP50 + 0.4)}: ${c1.value <= paddedP50 + 0.4 ? 'met' : 'MISSED'}); ` +
      `${Math.round(accepted.rps)} transfers/s accepted (>= 200: ${rateOk ? 'met' : 'MISSED'}); nonce gaps and unconfirmed: ${problems.length ? 'FOUND' : 'none'}`,
  );
  reportResult({
    bench: 'institutional',
    machine: machine(await postgresVersion(stack.database)),
    figures,
    notes: [
      `database ${stack.database.engine}; ${GETS} GET requests per run at concurrency 32, ${ROUNDS} alternating rounds; ${TRANSFERS} transfers from ${ACCOUNTS} accounts at ${TRANSFER_CONCURRENCY} concurrent`,
    ],
  });
  if (problems.length) process.exitCode = 1;
} catch (error) {
  console.error('institutional benchmark failed:', error);
  process.exitCode = 1;
} finally {
  await worker.terminate();
  await stack.close();
  rmSync(dataDir, { recursive: true, force: true });
}
