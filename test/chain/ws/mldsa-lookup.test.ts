// D-138: an SVC-MLDSA header whose public key nobody registered is refused with 401 after one lookup, before
// any ML-DSA verification (so the key never reaches the parsed-key cache of the OpenSSL backend), on the
// institutional API and on the /ws upgrade alike. The spy counts the backend's verifications.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type WebSocket from 'ws';
import { request } from '../../../conformance/http.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { mldsaAuthorization } from '../../../src/client/mldsa-signer.ts';
import { mlDsa65, toHex } from '../../../src/crypto/index.ts';
import { admin, openWs } from './support.ts';

const verifications = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/crypto/backends/openssl-ml-dsa.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/crypto/backends/openssl-ml-dsa.ts')>();
  return {
    ...actual,
    // The authenticator verifies on the calling thread (D-178).
    opensslMlDsa65Verify: (...args: Parameters<typeof actual.opensslMlDsa65Verify>) => {
      verifications.count++;
      return actual.opensslMlDsa65Verify(...args);
    },
  };
});

let target: Target;
const registered = mlDsa65.keygen();
const ACCOUNTS = '/wallet/api/v1/accounts';

beforeAll(async () => {
  target = await referenceTarget();
  const res = await admin(target, 'POST', 'mldsa-keys', {
    name: 'known',
    publicKey: toHex(registered.publicKey),
    permissions: ['accounts:read', 'chain:subscribe'],
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
});
afterAll(async () => target?.close?.());

const getAccounts = (authorization: string) => request(target, ACCOUNTS.slice(1), { headers: { authorization } });

describe('SVC-MLDSA with a key nobody registered', () => {
  it('is refused with 401 on the institutional API without an ML-DSA verification', async () => {
    const before = verifications.count;
    const stranger = mlDsa65.keygen();
    const refused = await getAccounts(mldsaAuthorization(stranger, 'GET', ACCOUNTS));
    expect(refused.status).toBe(401);
    expect((refused.json as { error: string }).error).toContain('not registered');
    expect(verifications.count).toBe(before);
    // The registered key is verified once and let in: the spy sees the backend's verifications.
    expect((await getAccounts(mldsaAuthorization(registered, 'GET', ACCOUNTS))).status).toBe(200);
    expect(verifications.count).toBe(before + 1);
  });

  it('is refused with 401 at the /ws upgrade without an ML-DSA verification', async () => {
    const before = verifications.count;
    expect(await openWs(target, { authorization: mldsaAuthorization(mlDsa65.keygen(), 'GET', '/ws') })).toBe(401);
    expect(verifications.count).toBe(before);
    const socket = (await openWs(target, { authorization: mldsaAuthorization(registered, 'GET', '/ws') })) as WebSocket;
    expect(typeof socket).toBe('object');
    socket.close();
    expect(verifications.count).toBe(before + 1);
  });
});
