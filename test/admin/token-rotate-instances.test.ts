// D-221: a token rotated through one instance stops working on every other at once. Two in-process reference
// instances share one PostgreSQL database and one Redis, as several `svckit serve` behind a load balancer do;
// neither keeps the token's hash anywhere but the database row each request reads.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startInstance, type Instance } from '../redis/instances.ts';
import { postgresMissing, sharedDatabase, type SharedDatabase } from '../redis/shared-postgres.ts';
import { redisMissing, startRedis, type TestRedis } from '../support/redis.ts';

const missing = postgresMissing ?? redisMissing;
let database: SharedDatabase;
let redis: TestRedis;
let one: Instance;
let two: Instance;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe.skipIf(missing !== undefined)(
  `two instances on one database${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    beforeAll(async () => {
      redis = await startRedis();
      database = await sharedDatabase();
      const env = { DATABASE_URL: database.url, REDIS_URL: redis.url, SVC_KEK: randomBytes(32).toString('base64url') };
      one = await startInstance(env);
      two = await startInstance(env);
    }, 180_000);
    afterAll(async () => {
      await two?.close();
      await one?.close();
      await database?.stop();
      await redis?.stop();
    });

    it('a rotation through one instance is refused by neither for the new token and by both for the old one', async () => {
      const old = one.ready.adminToken!;
      // Both accept the first token, so either could have kept it.
      expect((await call(one, '/admin/v1/api-keys', { headers: bearer(old) })).status).toBe(200);
      expect((await call(two, '/admin/v1/api-keys', { headers: bearer(old) })).status).toBe(200);
      const rotated = await call(one, '/admin/v1/admin-token/rotate', {
        headers: bearer(old),
        body: { currentToken: old },
      });
      expect(rotated.status).toBe(200);
      const { token } = rotated.json as { token: string };
      expect((await call(two, '/admin/v1/api-keys', { headers: bearer(old) })).status).toBe(401);
      expect((await call(one, '/admin/v1/api-keys', { headers: bearer(old) })).status).toBe(401);
      expect((await call(two, '/admin/v1/api-keys', { headers: bearer(token) })).status).toBe(200);
    });
  },
);
