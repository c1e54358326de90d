/**
 * `npm run bench -- redis`: what shared state costs (D-169, D-170), on a throw-away redis-server on loopback.
 *
 * 1. The SVC-MLDSA replay check with Redis: one `SET key 1 NX PX 60000` round trip through
 *    RedisReplayMemory, p50 and p99 over BENCH_OPS operations (default 5000), one at a time.
 * 2. A rate-limited route (limitRequests, a limit high enough never to refuse) answered by Fastify through
 *    inject at concurrency 1, with the in-process counter against the Redis store: p50 and p99 over
 *    BENCH_OPS requests per run; the runs alternate BENCH_ROUNDS times (default 3) and the median is shown,
 *    since the machine may be shared.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { RedisReplayMemory } from '../../src/server/auth/replay.ts';
import { limitRequests, shareRateLimits } from '../../src/server/http/rate-limit.ts';
import { openSharedState, type SharedState } from '../../src/storage/redis.ts';
import { redisMissing, startRedis } from '../../test/support/redis.ts';
import { figure, machine, reportResult } from './result.ts';

const OPS = Number(process.env.BENCH_OPS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** p50 and p99 of `samples` (microseconds). */
function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length / 2)]!, p99: sorted[Math.floor(sorted.length * 0.99)]! };
}

/** Microseconds of each of `count` sequential awaits of `op`, after a warm-up of 200. */
async function timeEach(count: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await op(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await op(i);
    samples.push((performance.now() - start) * 1000);
  }
  return samples;
}

/** A Fastify app with one route behind limitRequests, the counters in process or in `shared`. */
async function limitedApp(shared: SharedState | undefined) {
  const app = Fastify();
  if (shared) shareRateLimits(app, shared.commands, `bench-${randomBytes(4).toString('hex')}`);
  await limitRequests(app, 1_000_000_000);
  app.get('/limited', async () => ({ ok: true }));
  await app.ready();
  return app;
}

if (redisMissing) {
  console.error(`svckit redis benchmark: ${redisMissing}`);
  process.exit(1);
}
const redis = await startRedis();
const shared = await openSharedState(redis.url);
try {
  console.log(`svckit redis benchmark: node ${process.versions.node}, redis-server on loopback, ${OPS} operations\n`);
  const replays = new RedisReplayMemory(shared.commands);
  const prefix = randomBytes(8).toString('hex');
  const setNx = percentiles(await timeEach(OPS, (i) => replays.firstUse(`${prefix}${i}`)));
  console.log(`replay SET NX PX round trip: p50 ${setNx.p50.toFixed(0)} us, p99 ${setNx.p99.toFixed(0)} us`);

  const local = await limitedApp(undefined);
  const viaRedis = await limitedApp(shared);
  const runs: Record<'in process' | 'redis', { p50: number; p99: number }[]> = { 'in process': [], redis: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, app] of [
      ['in process', local],
      ['redis', viaRedis],
    ] as const) {
      const samples = await timeEach(OPS, async () => {
        const answer = await app.inject({ method: 'GET', url: '/limited', remoteAddress: '198.51.100.7' });
        if (answer.statusCode !== 200) throw new Error(`the limited route answered ${answer.statusCode}`);
      });
      runs[name].push(percentiles(samples));
    }
  }
  const median = (list: { p50: number; p99: number }[]) => [...list].sort((a, b) => a.p50 - b.p50)[list.length >> 1]!;
  for (const name of ['in process', 'redis'] as const) {
    const { p50, p99 } = median(runs[name]);
    console.log(`limited route, concurrency 1, counters ${name}: p50 ${p50.toFixed(0)} us, p99 ${p99.toFixed(0)} us`);
  }
  const overhead = median(runs.redis).p50 - median(runs['in process']).p50;
  console.log(`rate-limit overhead of Redis at p50: ${overhead.toFixed(0)} us`);
  // No target: the figures say what the shared state of D-169 and D-170 costs per request.
  reportResult({
    bench: 'redis',
    machine: machine(),
    figures: [
      figure('replay SET NX PX round trip: p50', setNx.p50, 'µs'),
      figure('replay SET NX PX round trip: p99', setNx.p99, 'µs'),
      figure('limited route, counters in process: p50', median(runs['in process']).p50, 'µs'),
      figure('limited route, counters in Redis: p50', median(runs.redis).p50, 'µs'),
      figure('rate-limit overhead of Redis at p50', overhead, 'µs'),
    ],
    notes: [`redis-server on loopback started by the benchmark; ${OPS} operations per run, median of ${ROUNDS} runs`],
  });
  await local.close();
  await viaRedis.close();
} finally {
  await shared.close();
  await redis.stop();
}
