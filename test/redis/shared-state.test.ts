// Several instances keep their guarantees when they share Redis (REDIS_URL, D-168 to D-170): two in-process
// reference instances on one Redis and one PostgreSQL database, real TLS, real Anvil.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mldsaAuthorization } from '../../src/client/mldsa-signer.ts';
import { mlDsa65 } from '../../src/crypto/index.ts';
import { CREDENTIAL_CACHE_MS } from '../../src/ledger/credentials.ts';
import { RATE_LIMIT_KEY_PREFIX } from '../../src/server/http/rate-limit.ts';
import { openSharedState } from '../../src/storage/redis.ts';
import { redisMissing, startRedis, type TestRedis } from '../support/redis.ts';
import { call, sleep, startInstance, warm, type Answer, type Instance } from './instances.ts';
import { postgresMissing, sharedDatabase, type SharedDatabase } from './shared-postgres.ts';

const missing = redisMissing ?? postgresMissing;
let redis: TestRedis;
let database: SharedDatabase;
let one: Instance;
let two: Instance;

describe.skipIf(missing !== undefined)(`two instances sharing Redis${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    redis = await startRedis();
    database = await sharedDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL: redis.url, SVC_KEK: randomBytes(32).toString('base64url') };
    one = await startInstance(env);
    two = await startInstance(env);
  }, 180_000);
  // Every case starts with a fresh 1 s window of the per-IP limits: their counters live only in Redis (D-169),
  // so removing them starts a new window at the next request, as the window's expiry would.
  beforeEach(async () => {
    const state = await openSharedState(redis.url);
    try {
      const counters = await state.commands.keys(`${RATE_LIMIT_KEY_PREFIX}*`);
      if (counters.length > 0) await state.commands.del(...counters);
    } finally {
      await state.close();
    }
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await database?.stop();
    await redis?.stop();
  });

  it('a burst of 30 from one IP over both instances gets exactly 10 through the institutional limit, then 429', async () => {
    await Promise.all([warm(one, 15), warm(two, 15)]);
    const started = Date.now();
    const answers: Array<Answer & { on: 1 | 2 }> = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const on = i % 2 === 0 ? 1 : 2;
        return { on, ...(await call(on === 1 ? one : two, '/wallet/api/v1/accounts')) } as const;
      }),
    );
    const elapsed = Date.now() - started;
    expect(elapsed, 'the burst must land within one 1 s window').toBeLessThan(1_000);
    const through = answers.filter((a) => a.status !== 429);
    const limited = answers.filter((a) => a.status === 429);
    // Unauthenticated, the requests that pass the limit get 401: the limit counts before authentication.
    expect(through.map((a) => a.status)).toEqual(Array(10).fill(401));
    expect(limited).toHaveLength(20);
    // Each process alone would let 10 through; both refused some, so they counted together.
    expect(new Set(limited.map((a) => a.on))).toEqual(new Set([1, 2]));
    for (const answer of limited) {
      expect(answer.json).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.headers['x-ratelimit-limit']).toBe('10');
    }
  });

  it('an SVC-MLDSA header accepted on one instance is refused as a replay on the other', async () => {
    const keys = mlDsa65.keygen();
    await one.stack.ledger.credentials.registerMldsaKey(keys.publicKey, {
      name: 'replay',
      permissions: ['accounts:read'],
      accountIds: null,
    });
    const header = mldsaAuthorization(keys, 'GET', '/wallet/api/v1/accounts', Date.now());
    const first = await call(one, '/wallet/api/v1/accounts', { headers: { authorization: header } });
    expect(first.status).toBe(200);
    const replayed = await call(two, '/wallet/api/v1/accounts', { headers: { authorization: header } });
    expect(replayed.status).toBe(401);
    expect(replayed.json).toMatchObject({ code: 'REPLAYED_SIGNATURE' });
    // A fresh signature by the same key is accepted on the second instance.
    const fresh = mldsaAuthorization(keys, 'GET', '/wallet/api/v1/accounts', Date.now() + 1);
    expect((await call(two, '/wallet/api/v1/accounts', { headers: { authorization: fresh } })).status).toBe(200);
  });

  it('an API key revoked through the admin API of one instance is refused by the other at once (announced)', async () => {
    const { row, token } = await one.stack.ledger.credentials.createApiKey({
      name: 'revoked elsewhere',
      permissions: ['accounts:read'],
      accountIds: null,
    });
    const bearer = { authorization: `Bearer ${token}` };
    // The second instance now remembers the key for CREDENTIAL_CACHE_MS (D-129).
    expect((await call(two, '/wallet/api/v1/accounts', { headers: bearer })).status).toBe(200);
    const revoked = await call(one, `/admin/v1/api-keys/${row.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${one.ready.adminToken}` },
    });
    expect(revoked.status).toBeLessThan(300);
    const revokedAt = Date.now();
    let refusedAfter: number | undefined;
    while (refusedAfter === undefined && Date.now() - revokedAt < 3 * CREDENTIAL_CACHE_MS) {
      const answer = await call(two, '/wallet/api/v1/accounts', { headers: bearer });
      if (answer.status === 401) refusedAfter = Date.now() - revokedAt;
      else {
        expect(answer.status).toBe(200);
        await sleep(120);
      }
    }
    expect(refusedAfter).toBeDefined();
    // Within the 1 s bound; far inside it, since the memory was dropped on the announcement rather than at expiry.
    expect(refusedAfter!).toBeLessThan(CREDENTIAL_CACHE_MS / 2);
  });

  it('with Redis gone, a limited route answers 503 in the surface error shape, and the process keeps serving', async () => {
    await redis.stop();
    const answer = await call(one, '/wallet/api/v1/accounts');
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ code: 'UNAVAILABLE' });
    expect(JSON.stringify(answer.json)).not.toContain(String(redis.port));
    // Redis comes back on the same port: the clients reconnect by themselves and the limit counts again.
    redis = await startRedis(redis.port);
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 401; attempt++) {
      await sleep(100);
      status = (await call(one, '/wallet/api/v1/accounts')).status;
    }
    expect(status).toBe(401);
  });
});
