/**
 * `npm run bench -- proxy`: what `svckit proxy` adds to an exchange (D-249, D-250). The reference stack runs in
 * this process (real TLS with X25519MLKEM768, PGlite, Anvil); `svckit proxy` runs as its own process in front
 * of it, with its own development CA, judging every answer; the load comes from this process over keep-alive
 * HTTPS. Three exchanges: GET /api/stats (explorer, a small JSON answer), POST /rpc eth_blockNumber (answered
 * from the stack's memory) and POST /rpc eth_getBalance (relayed to the node).
 *
 * Each is sent directly, through `svckit proxy`, through `svckit proxy --no-violations-header` (which answers
 * before it judges), and through a bare pass-through forwarder
 * (scripts/bench/bare-forwarder.mjs: the same second TLS hop, judging nothing), which measures the floor any
 * proxy on this machine stands on.
 *
 * 1. Concurrency 1: p50 and p99 over BENCH_OPS requests (default 2000), alternating BENCH_ROUNDS times
 *    (default 3); the median run is kept. Targets: proxied p50 ≤ 1.3x direct, and at most 1 ms added (D-263).
 * 2. Concurrency 32: requests per second over BENCH_OPS × 2 requests, alternating. Target: proxied ≥ 0.7x
 *    direct.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { LIFTED_LIMITS, startTestStack } from '../../test/support/stack.ts';
import { type BenchFigure, figure, machine, reportResult } from './result.ts';

const OPS = Number(process.env.BENCH_OPS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

type Exchange = { name: string; method: string; path: string; body?: string };
const EXCHANGES: Exchange[] = [
  { name: 'GET /api/stats', method: 'GET', path: '/api/stats' },
  {
    name: 'POST /rpc eth_blockNumber',
    method: 'POST',
    path: '/rpc',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  },
  {
    name: 'POST /rpc eth_getBalance',
    method: 'POST',
    path: '/rpc',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBalance',
      params: ['0x000000000000000000000000000000000000dEaD', 'latest'],
    }),
  },
];

/** Starts the bare forwarder in front of `upstream`; resolves with its origin. */
function startBareForwarder(
  upstream: string,
  caFile: string,
  tlsDir: string,
): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [path.join(import.meta.dirname, 'bare-forwarder.mjs'), upstream, caFile, tlsDir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare forwarder exited ${code}`)));
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ origin: m[1] as string, child });
    });
  });
}

/** One request over `agent`; resolves when the whole answer is read, rejects on a status other than 200. */
function request(agent: https.Agent, base: string, ex: Exchange): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${ex.path}`,
      {
        method: ex.method,
        agent,
        headers: ex.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ex.body) } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${ex.name} answered ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(ex.body);
  });
}

/** p50 and p99 (ms) of `count` sequential requests, after a warm-up of 200. */
async function sequential(agent: https.Agent, base: string, ex: Exchange, count: number) {
  for (let i = 0; i < 200; i++) await request(agent, base, ex);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await request(agent, base, ex);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count / 2)] as number, p99: samples[Math.floor(count * 0.99)] as number };
}

/** Requests per second of `count` requests, `concurrency` in flight. */
async function throughput(agent: https.Agent, base: string, ex: Exchange, count: number, concurrency: number) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await request(agent, base, ex);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / ((performance.now() - start) / 1000);
}

const median = <T>(list: T[], key: (t: T) => number): T =>
  [...list].sort((a, b) => key(a) - key(b))[list.length >> 1] as T;

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-bench-proxy-'));
const stack = await startTestStack({ env: { ...LIFTED_LIMITS } });
const proxies: ChildProcess[] = [];
let bare: ChildProcess | undefined;
try {
  writeFileSync(path.join(dir, 'stack-ca.pem'), stack.stack.tls.caCert);
  let violations = 0;
  /** Starts `svckit proxy` with `extra` options; resolves with its base origin. */
  const startProxy = (extra: string[]) => {
    const child = spawn(
      process.execPath,
      [
        SVCKIT_BIN,
        'proxy',
        '--upstream',
        String(stack.target.base).replace(/\/$/, ''),
        '--ca-cert',
        path.join(dir, 'stack-ca.pem'),
        '--port',
        '0',
        '--tls-dir',
        dir,
        '--out',
        path.join(dir, `reports${extra.length}`),
        ...extra,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proxies.push(child);
    child.stderr?.on('data', (d: Buffer) => {
      violations += d
        .toString()
        .split('\n')
        .filter((l) => l.startsWith('{"check"')).length;
    });
    let out = '';
    return new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`svckit proxy exited ${code}`)));
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /svckit proxy: base (\S+) ->/.exec(out);
        if (m && out.includes('development CA')) resolve(m[1] as string);
      });
    });
  };
  const proxied = await startProxy([]);
  // D-263: without the violations header the answer goes out before the exchange is judged.
  const proxiedQuiet = await startProxy(['--no-violations-header']);
  const direct = String(stack.target.base).replace(/\/$/, '');
  const forwarder = await startBareForwarder(direct, path.join(dir, 'stack-ca.pem'), path.join(dir, 'tls'));
  bare = forwarder.child;
  const ca = [stack.stack.tls.caCert, readFileSync(path.join(dir, 'tls', 'ca.pem'), 'utf8')];
  const agentOf = (sockets: number) => new https.Agent({ keepAlive: true, maxSockets: sockets, ca });
  console.log(`svckit proxy benchmark: node ${process.versions.node}, ${OPS} requests per run, ${ROUNDS} rounds\n`);
  const figures: BenchFigure[] = [];
  for (const ex of EXCHANGES) {
    type Latency = { p50: number; p99: number };
    const one = { direct: [] as Latency[], proxied: [] as Latency[], quiet: [] as Latency[], bare: [] as Latency[] };
    const many = { direct: [] as number[], proxied: [] as number[], quiet: [] as number[], bare: [] as number[] };
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, base] of [
        ['direct', direct],
        ['proxied', proxied],
        ['quiet', proxiedQuiet],
        ['bare', forwarder.origin],
      ] as const) {
        const a1 = agentOf(1);
        one[name].push(await sequential(a1, base, ex, OPS));
        a1.destroy();
        const a32 = agentOf(32);
        many[name].push(await throughput(a32, base, ex, OPS * 2, 32));
        a32.destroy();
      }
    const d = median(one.direct, (r) => r.p50);
    const p = median(one.proxied, (r) => r.p50);
    const b = median(one.bare, (r) => r.p50);
    const q = median(one.quiet, (r) => r.p50);
    const qRate = median(many.quiet, (r) => r);
    const dRate = median(many.direct, (r) => r);
    const pRate = median(many.proxied, (r) => r);
    const bRate = median(many.bare, (r) => r);
    console.log(
      `${ex.name}: concurrency 1 p50 ${d.p50.toFixed(2)} ms direct, ${p.p50.toFixed(2)} ms proxied (${(p.p50 / d.p50).toFixed(2)}x), ` +
        `${q.p50.toFixed(2)} ms proxied without the header (${(q.p50 / d.p50).toFixed(2)}x), ` +
        `${b.p50.toFixed(2)} ms bare forwarder (${(b.p50 / d.p50).toFixed(2)}x); concurrency 32 ${dRate.toFixed(0)} req/s direct, ` +
        `${pRate.toFixed(0)} req/s proxied (${(pRate / dRate).toFixed(2)}x), ${qRate.toFixed(0)} req/s without the header (${(qRate / dRate).toFixed(2)}x), ${bRate.toFixed(0)} req/s bare forwarder (${(bRate / dRate).toFixed(2)}x)`,
    );
    figures.push(
      figure(`${ex.name}, concurrency 1: p50 proxied / direct`, p.p50 / d.p50, 'x', {
        limit: 1.3,
        comparison: 'at-most',
      }),
      figure(`${ex.name}, concurrency 1: p50 added by the proxy`, p.p50 - d.p50, 'ms', {
        limit: 1,
        comparison: 'at-most',
      }),
      figure(`${ex.name}, concurrency 32: req/s proxied / direct`, pRate / dRate, 'x', {
        limit: 0.7,
        comparison: 'at-least',
      }),
      figure(`${ex.name}, concurrency 1: p50 proxied without the violations header / direct`, q.p50 / d.p50, 'x'),
      figure(`${ex.name}, concurrency 32: req/s proxied without the violations header / direct`, qRate / dRate, 'x'),
      figure(`${ex.name}, concurrency 1: p50 bare forwarder / direct`, b.p50 / d.p50, 'x'),
      figure(`${ex.name}, concurrency 32: req/s bare forwarder / direct`, bRate / dRate, 'x'),
      figure(`${ex.name}, concurrency 1: p50 direct`, d.p50, 'ms'),
      figure(`${ex.name}, concurrency 1: p50 proxied`, p.p50, 'ms'),
      figure(`${ex.name}, concurrency 1: p99 direct`, d.p99, 'ms'),
      figure(`${ex.name}, concurrency 1: p99 proxied`, p.p99, 'ms'),
      figure(`${ex.name}, concurrency 32: direct`, dRate, 'req/s'),
      figure(`${ex.name}, concurrency 32: proxied`, pRate, 'req/s'),
    );
  }
  console.log(`violations the proxy reported: ${violations}`);
  reportResult({
    bench: 'proxy',
    machine: machine(),
    figures,
    notes: [
      `${OPS} requests per concurrency-1 run and ${OPS * 2} per concurrency-32 run, median of ${ROUNDS} alternating runs; the proxy reported ${violations} violations`,
    ],
  });
} finally {
  for (const child of proxies) child.kill('SIGTERM');
  bare?.kill('SIGTERM');
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
}
