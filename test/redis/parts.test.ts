// The shared-state parts one at a time (D-168 to D-170), against the Redis of REDIS_URL when set (the .ci/run
// Redis pass) or a throw-away redis-server; the outage case always stops a server of its own.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { CREDENTIAL_CACHE_MS, CredentialStore } from '../../src/ledger/credentials.ts';
import { shareCredentialChanges } from '../../src/server/auth/credential-changes.ts';
import { REPLAY_KEY_PREFIX, REPLAY_WINDOW_MS, RedisReplayMemory } from '../../src/server/auth/replay.ts';
import { installErrorHandling } from '../../src/server/http/error-handler.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { limitRequests, shareRateLimits } from '../../src/server/http/rate-limit.ts';
import { RedisRateWindow } from '../../src/server/http/rate-window.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { openSharedState, type SharedState } from '../../src/storage/redis.ts';
import { redisMissing, startRedis, type TestRedis } from '../support/redis.ts';

const missing = process.env.REDIS_URL ? undefined : redisMissing;
let server: TestRedis | undefined;
let redisUrl: string;
const opened: SharedState[] = [];

/** A new connection pair, as one more instance would open. */
async function instance(url = redisUrl): Promise<SharedState> {
  const shared = await openSharedState(url);
  opened.push(shared);
  return shared;
}

/** An origin-like app: the surfaces' error handling and one route behind a 10/s limit. */
async function limitedApp(shared: SharedState | undefined, origin: string): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  if (shared) shareRateLimits(app, shared.commands, origin);
  await app.register(
    async (scope) => {
      await limitRequests(scope, 10);
      scope.get('/limited', async () => ({ ok: true }));
    },
    { prefix: '/v1' },
  );
  await app.ready();
  return app;
}

const hit = (app: FastifyInstance, ip = '203.0.113.9') =>
  app.inject({ method: 'GET', url: '/v1/limited', remoteAddress: ip });

describe.skipIf(missing !== undefined)(`shared state parts${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    if (process.env.REDIS_URL) redisUrl = process.env.REDIS_URL;
    else {
      server = await startRedis();
      redisUrl = server.url;
    }
  });
  afterAll(async () => {
    for (const shared of opened) await shared.close();
    await server?.stop();
  });

  it('a replay digest is accepted once, refused after, and expires with the 60 s window (SET NX PX)', async () => {
    const shared = await instance();
    const [first, second] = [
      new RedisReplayMemory(shared.commands),
      new RedisReplayMemory((await instance()).commands),
    ];
    const digest = randomBytes(32).toString('base64');
    expect(await first.firstUse(digest)).toBe(true);
    expect(await second.firstUse(digest)).toBe(false);
    expect(await first.firstUse(digest)).toBe(false);
    const ttl = await shared.commands.pttl(`${REPLAY_KEY_PREFIX}${digest}`);
    expect(ttl).toBeGreaterThan(REPLAY_WINDOW_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(REPLAY_WINDOW_MS);
  });

  it('two apps on one Redis share a limit: 10 through in total, then the same 429 as in process', async () => {
    const origin = `parts-${randomBytes(4).toString('hex')}`;
    const [a, b] = [await limitedApp(await instance(), origin), await limitedApp(await instance(), origin)];
    const local = await limitedApp(undefined, origin);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await hit(i % 2 ? a : b));
    expect(answers.map((r) => r.statusCode)).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
    const localAnswers = [];
    for (let i = 0; i < 11; i++) localAnswers.push(await hit(local));
    const [shared429, local429] = [answers[10]!, localAnswers[10]!];
    expect(local429.statusCode).toBe(429);
    // The same body and the same limit headers as the in-process store (D-022).
    expect(shared429.json()).toEqual(local429.json());
    for (const header of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining'])
      expect(shared429.headers[header], header).toBe(local429.headers[header]);
    expect(shared429.json()).toMatchObject({ code: 'RATE_LIMITED' });
    // Another client IP has its own count.
    expect((await hit(a, '203.0.113.10')).statusCode).toBe(200);
    await Promise.all([a.close(), b.close(), local.close()]);
  });

  it('a limit lifted on one instance (0) does not renumber the limits after it', async () => {
    const origin = `lifted-${randomBytes(4).toString('hex')}`;
    /** An app with a first limit of `first` per second on /a and 10 per second on /b. */
    const twoLimits = async (first: number) => {
      const app = Fastify();
      installErrorHandling(app);
      shareRateLimits(app, (await instance()).commands, origin);
      await app.register(async (scope) => {
        await limitRequests(scope, first);
        scope.get('/a', async () => ({ ok: true }));
      });
      await app.register(async (scope) => {
        await limitRequests(scope, 10);
        scope.get('/b', async () => ({ ok: true }));
      });
      await app.ready();
      return app;
    };
    const [lifted, limited] = [await twoLimits(0), await twoLimits(5)];
    const statuses = [];
    for (let i = 0; i < 14; i++)
      statuses.push(
        (await (i % 2 ? lifted : limited).inject({ method: 'GET', url: '/b', remoteAddress: '203.0.113.11' }))
          .statusCode,
      );
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);
    await Promise.all([lifted.close(), limited.close()]);
  });

  it('a change announced by one store makes the other forget at once; unannounced, it waits for the 1 s bound', async () => {
    const database: OpenDatabase = await openDatabase({ dataDir: null });
    try {
      const changing = new CredentialStore(database.db, systemClock);
      const listening = new CredentialStore(database.db, systemClock);
      const deaf = new CredentialStore(database.db, systemClock);
      await shareCredentialChanges(changing, await instance(), () => undefined);
      await shareCredentialChanges(listening, await instance(), () => undefined);
      const { row, token } = await changing.createApiKey({
        name: 'p',
        permissions: ['accounts:read'],
        accountIds: null,
      });
      expect(await listening.findApiKeyByToken(token)).toBeDefined();
      expect(await deaf.findApiKeyByToken(token)).toBeDefined();
      const revokedAt = Date.now();
      await changing.revokeApiKey(row.id);
      // The store that hears nothing still remembers the key, for at most CREDENTIAL_CACHE_MS (D-129).
      expect(await deaf.findApiKeyByToken(token)).toBeDefined();
      let forgotAfter: number | undefined;
      while (forgotAfter === undefined && Date.now() - revokedAt < 2 * CREDENTIAL_CACHE_MS) {
        if (!(await listening.findApiKeyByToken(token))) forgotAfter = Date.now() - revokedAt;
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(forgotAfter).toBeLessThan(CREDENTIAL_CACHE_MS / 4);
    } finally {
      await database.close();
    }
  });

  it('with Redis stopped, a limited route is 503 UNAVAILABLE and a replay check refuses; both work again after', async () => {
    const own = await startRedis();
    try {
      const shared = await instance(own.url);
      const app = await limitedApp(shared, 'outage');
      const replays = new RedisReplayMemory(shared.commands);
      expect((await hit(app)).statusCode).toBe(200);
      await own.stop();
      const down = await hit(app);
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({
        error: 'the shared rate-limit store does not answer; try again later',
        code: 'UNAVAILABLE',
      });
      const refusal = await replays.firstUse(randomBytes(32).toString('base64')).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(RestError);
      expect((refusal as RestError).code).toBe('UNAVAILABLE');
      const back = await startRedis(own.port);
      try {
        let status = 0;
        for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = (await hit(app)).statusCode;
        }
        expect(status).toBe(200);
        expect(await replays.firstUse(randomBytes(32).toString('base64'))).toBe(true);
      } finally {
        await app.close();
        await back.stop();
      }
    } finally {
      await own.stop();
    }
  });

  it('the JSON-RPC counter counts a batch per entry across instances, and refuses with unavailable when Redis is gone', async () => {
    const ip = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const one = new RedisRateWindow(10, 1000, (await instance()).commands);
    const two = new RedisRateWindow(10, 1000, (await instance()).commands);
    // A batch of 6 on one instance and 4 on the other fill the window; the next single request is refused.
    expect((await one.take(ip, 6)).allowed).toBe(true);
    const full = await two.take(ip, 4);
    expect(full).toMatchObject({ allowed: true, remaining: 0 });
    const over = await one.take(ip, 1);
    expect(over.allowed).toBe(false);
    expect(over.retryAfterSeconds).toBe(1);
    // Another IP has its own window.
    expect((await two.take(`${ip}0`, 1)).allowed).toBe(true);
    const own = await startRedis();
    const lone = new RedisRateWindow(10, 1000, (await instance(own.url)).commands);
    await own.stop();
    expect(await lone.take(ip, 1)).toMatchObject({ allowed: false, unavailable: true });
  });
});
