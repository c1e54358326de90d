// State the instances must share through REDIS_URL (one Redis beside the one PostgreSQL), seen through real
// HTTPS on three `svckit serve` processes: the institutional rate limit counts one client IP across all of
// them (spec "Limits": 10 requests per second per IP), an ML-DSA signed header used on one instance is a
// replay on another (spec: replayed signatures are refused), and a key revoked on one is refused by all three
// within a second.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminJson, inst, mldsaKey, type Credential } from '../../conformance/checks/institutional/support.ts';
import { PROBE_LIMIT, request } from '../../conformance/http.ts';
import { mldsaAuthorization } from '../../src/client/mldsa-signer.ts';
import { startCluster, type Cluster } from './harness.ts';

let cluster: Cluster;

beforeAll(async () => {
  // The spec's limit of 10 requests per second per IP (the default), the admin API's lifted for the set-up.
  cluster = await startCluster({ instances: 3, env: { SVC_RATE_LIMIT: '10', SVC_RATE_LIMIT_ADMIN: '0' } });
});
afterAll(async () => {
  await cluster?.stop();
});

/** One GET /accounts on instance `i`, sent at once and answered as it is (no pacing, no waiting out a 429). */
const getAccounts = (i: number, authorization: string) =>
  request(cluster.instances[i]!.target, 'wallet/api/v1/accounts', {
    method: 'GET',
    headers: { authorization },
    ...PROBE_LIMIT,
  });

/** Waits until no request of this client counts in the current window (the limit is per second). */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() % 1000)));

describe('three instances share rate limits, replay digests and revocations', () => {
  // Every case starts in a fresh 1 s window of the shared per-IP limit: the burst case fills the one it runs in.
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, 1_100)));

  it('a burst of 30 requests from one IP spread over three instances gets 429 beyond 10 in the second', async () => {
    const admin = cluster.instances[0]!.target;
    const { token } = await adminJson<{ token: string }>(
      admin,
      'POST',
      '/api-keys',
      { name: 'burst', permissions: ['accounts:read'] },
      201,
    );
    await nextSecond();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => getAccounts(n % 3, `Bearer ${token}`).then((res) => res.status)),
    );
    const passed = answers.filter((s) => s === 200).length;
    const limited = answers.filter((s) => s === 429).length;
    expect(passed + limited).toBe(30);
    // Within one second at most 10 pass; a burst that straddles a second boundary may see two windows.
    expect(passed).toBeGreaterThanOrEqual(10);
    expect(passed).toBeLessThanOrEqual(20);
    expect(limited).toBeGreaterThanOrEqual(10);
  });

  it('an ML-DSA signed header used on one instance is refused as a replay (401) on another', async () => {
    const admin = cluster.instances[0]!.target;
    const keys = await mldsaKey(admin, ['accounts:read']);
    await nextSecond();
    const header = mldsaAuthorization(keys, 'GET', '/wallet/api/v1/accounts', Date.now());
    const first = await getAccounts(0, header);
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    const replayed = await getAccounts(1, header);
    expect(replayed.status, replayed.text.slice(0, 300)).toBe(401);
    const again = await getAccounts(2, header);
    expect(again.status, again.text.slice(0, 300)).toBe(401);
  });

  it('an API key revoked on one instance is refused by all three within 1 s', async () => {
    const admin = cluster.instances[0]!.target;
    const created = await adminJson<{ id: string; token: string }>(
      admin,
      'POST',
      '/api-keys',
      { name: 'revoked', permissions: ['accounts:read'] },
      201,
    );
    const credential: Credential = { bearer: created.token };
    // Every instance has seen the key in use (whatever it keeps of a key it has checked).
    for (const instance of cluster.instances)
      expect((await inst(instance.target, 'GET', '/accounts', credential)).status).toBe(200);
    await adminJson(cluster.instances[1]!.target, 'DELETE', `/api-keys/${created.id}`, undefined, 204);
    const revokedAt = Date.now();
    // One second after the revocation answered, every instance refuses the key.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() - revokedAt)));
    const answers = await Promise.all(
      cluster.instances.map(async (instance) => (await inst(instance.target, 'GET', '/accounts', credential)).status),
    );
    expect(answers).toEqual([401, 401, 401]);
  });
});
