/**
 * The hostile-load part of `npm run bench -- rpc` (D-203): blocks sealed per minute on the spec's 2-second
 * block period while unauthenticated clients run the costliest simulated calls /rpc allows, against the same
 * minute without them. The stack is the reference stack over TLS with the /rpc rate limit lifted (an attacker
 * with many client IPs); the gas cap (D-199) and the in-flight bounds (D-200) stay. The load: 4 concurrent
 * requests, then one a second; each holds eth_estimateGas of BLAKE2F (0x09, one gas a round) at the most rounds
 * the cap allows, and the same with 29,000,000 rounds and no gas. Target: at least 0.9x the blocks without load.
 *
 * Settings: BENCH_HOSTILE_SECONDS (default 60, each of the two windows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { listen } from '../../src/server/main.ts';
import { type BenchFigure, figure } from './result.ts';

const WINDOW_S = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
const PERIOD_S = 2;
const BLAKE2F = '0x0000000000000000000000000000000000000009';
/** Gas a call takes before the precompile runs (21000 and its 213 bytes of input), with room to spare. */
const INTRINSIC = 25_000;

const blake2f = (rounds: number) => ({
  to: BLAKE2F,
  data: `0x${rounds.toString(16).padStart(8, '0')}${'00'.repeat(64 + 128 + 16)}01`,
});

/** POSTs `body` to `url` on a fresh connection; the parsed answer, or undefined when the exchange failed. */
function post(url: string, ca: string, body: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const req = https.request(
      url,
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', () => resolve(undefined));
    req.end(JSON.stringify(body));
  });
}

/**
 * Blocks sealed in `seconds`; with `during`, it runs 4 times at once at the start, then once a second (its
 * answers awaited at the end).
 */
async function sealedIn(head: () => Promise<number>, seconds: number, during?: () => Promise<unknown>) {
  const pending: Promise<unknown>[] = [];
  const from = await head();
  const started = Date.now();
  if (during) for (let i = 0; i < 4; i++) pending.push(during());
  for (let second = 1; second <= seconds; second++) {
    await new Promise((resolve) => setTimeout(resolve, started + second * 1000 - Date.now()));
    if (during && second < seconds) pending.push(during());
  }
  const sealed = (await head()) - from;
  const elapsed = (Date.now() - started) / 1000;
  return { sealed, elapsed, answers: await Promise.all(pending) };
}

/** Runs both windows on a fresh stack; the figures and the lines to print. */
export async function hostileLoad(): Promise<{ figures: BenchFigure[]; lines: string[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-bench-hostile-'));
  const config = loadConfig({
    ...process.env,
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: String(PERIOD_S),
    SVC_RATE_LIMIT_RPC: '0',
  });
  const { stack, ready } = await listen(config, { logLevel: 'silent' });
  try {
    const url = `${ready.base}/rpc`;
    const ca = stack.tls.caCert;
    const head = async () => Number(BigInt(await stack.chain.upstream.call<string>('eth_blockNumber')));
    const attack = () =>
      post(url, ca, [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_estimateGas',
          params: [blake2f(config.rpcSimulation.gasCap - INTRINSIC)],
        },
        { jsonrpc: '2.0', id: 2, method: 'eth_estimateGas', params: [blake2f(29_000_000)] },
      ]);
    const quiet = await sealedIn(head, WINDOW_S);
    const hostile = await sealedIn(head, WINDOW_S, attack);
    const entries = hostile.answers.flatMap((a) => (Array.isArray(a) ? a : [])) as {
      result?: unknown;
      error?: { code: number };
    }[];
    const estimated = entries.filter((e) => e.result !== undefined).length;
    const refused = entries.filter((e) => e.error?.code === -32005).length;
    const failed = entries.filter((e) => e.error && e.error.code !== -32005).length;
    const perMinute = (w: { sealed: number; elapsed: number }) => (w.sealed / w.elapsed) * 60;
    const ratio = perMinute(hostile) / perMinute(quiet);
    const figures = [
      figure('blocks sealed per minute, 2 s period, no load', perMinute(quiet), 'blocks/min'),
      figure('blocks sealed per minute, 2 s period, hostile simulated calls', perMinute(hostile), 'blocks/min'),
      figure('blocks sealed per minute under hostile simulated calls / without them', ratio, 'x', {
        limit: 0.9,
        comparison: 'at-least',
        description: 'D-203',
      }),
    ];
    const lines = [
      `hostile load (${WINDOW_S} s windows, 2 s period, gas cap ${config.rpcSimulation.gasCap}): ${quiet.sealed} blocks in ${quiet.elapsed.toFixed(1)} s without load, ${hostile.sealed} in ${hostile.elapsed.toFixed(1)} s under load: ${ratio.toFixed(2)}x (target >= 0.9x)`,
      `  attack entries: ${estimated} estimated at the cap, ${refused} refused -32005 (in-flight bound), ${failed} other errors (out of gas past the cap)`,
    ];
    return { figures, lines };
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
