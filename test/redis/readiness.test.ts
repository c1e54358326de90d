// D-262: with REDIS_URL, /readyz names Redis on every origin while it is away and is ready again once it is
// back; /livez stays 200 throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisMissing, startRedis, type TestRedis } from '../support/redis.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

const missing = redisMissing;
let redis: TestRedis | undefined;
let running: TestStack | undefined;

beforeAll(async () => {
  if (missing) return;
  redis = await startRedis();
  running = await startTestStack({ env: { REDIS_URL: redis.url }, trustCa: true });
}, 60_000);
afterAll(async () => {
  await running?.close();
  await redis?.stop();
});

/** Polls `GET {origin}/readyz` every 50 ms until it answers `status`, for at most `boundMs`. */
async function readyzBecomes(origin: string, status: number, boundMs: number): Promise<Response> {
  const until = Date.now() + boundMs;
  for (;;) {
    const answer = await fetch(`${origin}/readyz`);
    if (answer.status === status) return answer;
    if (Date.now() > until) throw new Error(`${origin}/readyz never answered ${status} within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(missing)('readiness with Redis (D-262)', () => {
  it('Redis stopped: every origin is live and answers /readyz 503 naming redis; restarted: ready again', async () => {
    const origins = [running!.ready.base, running!.ready.wallet, running!.ready.site];
    for (const origin of origins) expect((await fetch(`${origin}/readyz`)).status).toBe(200);
    const port = redis!.port;
    await redis!.stop();
    for (const origin of origins) {
      expect((await fetch(`${origin}/livez`)).status).toBe(200);
      const answer = await readyzBecomes(origin, 503, 5_000);
      expect(await answer.json()).toEqual({ error: 'not ready: redis unavailable', code: 'NOT_READY' });
    }
    redis = await startRedis(port);
    for (const origin of origins) {
      expect(await (await readyzBecomes(origin, 200, 10_000)).json()).toEqual({ status: 'ok' });
    }
  }, 60_000);
});
