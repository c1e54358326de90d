// The admin console's credential operations (specs/admin.openapi.yaml: /api-keys, /mldsa-keys; D-015, D-057,
// D-059) over real HTTPS against the in-process reference stack, and their effect on the institutional API.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../conformance/http.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { mlDsa65, toHex } from '../../src/crypto/index.ts';
import { accountBody, admin, expectContract, mldsaHeader, wallet } from './support.ts';

let target: Target;
let accountA: { id: string; reference: string };
let accountB: { id: string };

// The institutional rate limit (10/s per IP) is lifted: these tests call faster than that from one IP.
beforeAll(async () => {
  target = await referenceTarget({ env: { SVC_RATE_LIMIT: '0' } });
  accountA = (await admin(target, 'POST', '/accounts', accountBody('a@bank-a.example'))).json as typeof accountA;
  accountB = (await admin(target, 'POST', '/accounts', accountBody('b@bank-b.example'))).json as typeof accountB;
});
afterAll(async () => {
  await target?.close?.();
});

const A = 'admin.openapi.yaml';
const I = 'institutional.openapi.yaml';
type Key = {
  id: string;
  token: string;
  tokenPrefix: string;
  accountIds: string[] | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
};

describe('API keys', () => {
  it('shows the raw token once: in the creation response, never in the list', async () => {
    const created = await admin(target, 'POST', '/api-keys', {
      name: 'treasury',
      permissions: ['accounts:read'],
      accountIds: [accountA.id],
    });
    await expectContract(A, 'POST /api-keys', created, 201);
    const key = created.json as Key;
    expect(key.token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(key.tokenPrefix).toBe(key.token.slice(0, 12));
    expect(key).toMatchObject({ accountIds: [accountA.id], lastUsedAt: null, revokedAt: null });
    const list = await admin(target, 'GET', '/api-keys');
    await expectContract(A, 'GET /api-keys', list, 200);
    expect(list.text).not.toContain(key.token);
    expect(list.text).not.toContain(createHash('sha256').update(key.token).digest('hex'));
    const listed = (list.json as { apiKeys: Key[] }).apiKeys.find((k) => k.id === key.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('token');
  });

  it('authenticates on the institutional API until revoked, then gets 401', async () => {
    const key = (await admin(target, 'POST', '/api-keys', { name: 'reader', permissions: ['accounts:read'] }))
      .json as Key;
    const read = await wallet(target, 'GET', `/accounts/${accountA.id}`, key.token);
    await expectContract(I, 'GET /accounts/{id}', read, 200);
    expect(read.json).toMatchObject({ id: accountA.id, reference: accountA.reference });
    const listed = ((await admin(target, 'GET', '/api-keys')).json as { apiKeys: Key[] }).apiKeys.find(
      (k) => k.id === key.id,
    )!;
    expect(listed.lastUsedAt).not.toBeNull();

    const revoked = await admin(target, 'DELETE', `/api-keys/${key.id}`);
    await expectContract(A, 'DELETE /api-keys/{id}', revoked, 204);
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountA.id}`, key.token),
      401,
    );
    // D-059: revoking again is a no-op; the key stays listed with revokedAt.
    await expectContract(A, 'DELETE /api-keys/{id}', await admin(target, 'DELETE', `/api-keys/${key.id}`), 204);
    const after = ((await admin(target, 'GET', '/api-keys')).json as { apiKeys: Key[] }).apiKeys.find(
      (k) => k.id === key.id,
    )!;
    expect(after.revokedAt).not.toBeNull();
    const patch = await admin(target, 'PATCH', `/api-keys/${key.id}`, { name: 'again' });
    await expectContract(A, 'PATCH /api-keys/{id}', patch, 409);
    expect(patch.json).toMatchObject({ code: 'REVOKED' });
  });

  it('enforces permissions and the account restriction (D-015), and PATCH replaces them (D-059)', async () => {
    const noRead = (await admin(target, 'POST', '/api-keys', { name: 'writer', permissions: ['transfers:write'] }))
      .json as Key;
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountA.id}`, noRead.token),
      403,
    );

    const onlyA = (
      await admin(target, 'POST', '/api-keys', {
        name: 'a only',
        permissions: ['accounts:read'],
        accountIds: [accountA.id],
      })
    ).json as Key;
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountA.id}`, onlyA.token),
      200,
    );
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountB.id}`, onlyA.token),
      404,
    ); // D-128

    const lifted = await admin(target, 'PATCH', `/api-keys/${onlyA.id}`, { accountIds: null });
    await expectContract(A, 'PATCH /api-keys/{id}', lifted, 200);
    expect(lifted.json).toMatchObject({ id: onlyA.id, accountIds: null, permissions: ['accounts:read'] });
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountB.id}`, onlyA.token),
      200,
    );

    const readOnlyTransfers = await admin(target, 'PATCH', `/api-keys/${onlyA.id}`, {
      permissions: ['transfers:read'],
      name: 'renamed',
    });
    await expectContract(A, 'PATCH /api-keys/{id}', readOnlyTransfers, 200);
    expect(readOnlyTransfers.json).toMatchObject({ name: 'renamed', permissions: ['transfers:read'] });
    await expectContract(
      I,
      'GET /accounts/{id}',
      await wallet(target, 'GET', `/accounts/${accountB.id}`, onlyA.token),
      403,
    );
  });

  it('refuses bad bodies with 400 naming the field, and unknown ids with 404', async () => {
    const cases: [unknown, RegExp, string?][] = [
      [
        { name: 'x', permissions: ['transfers:all'] },
        /^"permissions\[0\]" expected one of accounts:read, .*got "transfers:all"$/,
      ],
      [{ name: 'x', permissions: [] }, /^"permissions"/],
      [{ name: 'x', permissions: ['accounts:read', 'accounts:read'] }, /^"permissions\[1\]"/],
      [{ name: '', permissions: ['accounts:read'] }, /^"name"/],
      [{ name: 'x', permissions: ['accounts:read'], extra: 1 }, /^"extra"/],
      [
        { name: 'x', permissions: ['accounts:read'], accountIds: ['acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XB'] },
        /^"accountIds\[0\]" expected an existing account/,
        'UNKNOWN_ACCOUNT',
      ],
      [{ name: 'x', permissions: ['accounts:read'], accountIds: ['ACC-0000000001'] }, /^"accountIds\[0\]"/],
    ];
    for (const [body, message, code] of cases) {
      const res = await admin(target, 'POST', '/api-keys', body);
      await expectContract(A, 'POST /api-keys', res, 400);
      expect((res.json as { error: string }).error).toMatch(message);
      if (code) expect(res.json).toMatchObject({ code });
    }
    const key = (await admin(target, 'POST', '/api-keys', { name: 'k', permissions: ['accounts:read'] })).json as Key;
    const empty = await admin(target, 'PATCH', `/api-keys/${key.id}`, {});
    await expectContract(A, 'PATCH /api-keys/{id}', empty, 400);
    expect((empty.json as { error: string }).error).toBe(
      'body expected at least one of name, permissions, accountIds, got {}',
    );
    await expectContract(
      A,
      'PATCH /api-keys/{id}',
      await admin(target, 'PATCH', '/api-keys/key_01JD40M2TQ8R5S7V9W3X6Y4Z0A', { name: 'n' }),
      404,
    );
    await expectContract(
      A,
      'DELETE /api-keys/{id}',
      await admin(target, 'DELETE', '/api-keys/key_01JD40M2TQ8R5S7V9W3X6Y4Z0A'),
      404,
    );
    await expectContract(A, 'DELETE /api-keys/{id}', await admin(target, 'DELETE', '/api-keys/42'), 400);
  });
});

describe('ML-DSA-65 keys', () => {
  const keys = mlDsa65.keygen();
  const publicKey = toHex(keys.publicKey);
  let registered: { id: string; fingerprint: string };

  it('registers a public key with its fingerprint (D-031) and authenticates SVC-MLDSA requests', async () => {
    const res = await admin(target, 'POST', '/mldsa-keys', {
      name: 'hub',
      publicKey: publicKey.toUpperCase(),
      permissions: ['accounts:read'],
      accountIds: [accountA.id],
    });
    await expectContract(A, 'POST /mldsa-keys', res, 201);
    registered = res.json as typeof registered;
    const fingerprint = createHash('sha3-256').update(keys.publicKey).digest('hex').slice(0, 16);
    expect(res.json).toMatchObject({
      publicKey,
      fingerprint,
      accountIds: [accountA.id],
      revokedAt: null,
      lastUsedAt: null,
    });

    const path = `/wallet/api/v1/accounts/${accountA.id}`;
    const read = await request(target, path.slice(1), { headers: { authorization: mldsaHeader(keys, 'GET', path) } });
    await expectContract(I, 'GET /accounts/{id}', read, 200);
    expect(read.json).toMatchObject({ id: accountA.id });
    const list = await admin(target, 'GET', '/mldsa-keys');
    await expectContract(A, 'GET /mldsa-keys', list, 200);
    expect(
      (list.json as { mldsaKeys: { id: string; lastUsedAt: string | null }[] }).mldsaKeys.find(
        (k) => k.id === registered.id,
      )?.lastUsedAt,
    ).not.toBeNull();
  });

  it('refuses a key of the wrong length (400) and a key registered twice (409)', async () => {
    const short = await admin(target, 'POST', '/mldsa-keys', {
      name: 'short',
      publicKey: publicKey.slice(0, 2624),
      permissions: ['accounts:read'],
    });
    await expectContract(A, 'POST /mldsa-keys', short, 400);
    expect((short.json as { error: string }).error).toBe(
      '"publicKey" expected 3904 hex characters (ML-DSA-65, 1952 bytes), got 2624',
    );
    const notHex = await admin(target, 'POST', '/mldsa-keys', {
      name: 'z',
      publicKey: 'z'.repeat(3904),
      permissions: ['accounts:read'],
    });
    await expectContract(A, 'POST /mldsa-keys', notHex, 400);
    const again = await admin(target, 'POST', '/mldsa-keys', {
      name: 'again',
      publicKey,
      permissions: ['accounts:read'],
    });
    await expectContract(A, 'POST /mldsa-keys', again, 409);
    expect(again.json).toMatchObject({ code: 'DUPLICATE_KEY' });
    expect((again.json as { error: string }).error).toContain(registered.id);
  });

  it('updates permissions but never the public key, and a revoked key gets 401 (D-059)', async () => {
    const changeKey = await admin(target, 'PATCH', `/mldsa-keys/${registered.id}`, {
      publicKey: toHex(mlDsa65.keygen().publicKey),
    });
    await expectContract(A, 'PATCH /mldsa-keys/{id}', changeKey, 400);
    expect((changeKey.json as { error: string }).error).toBe(
      '"publicKey" cannot be changed; register a new key instead',
    );

    const path = `/wallet/api/v1/accounts/${accountB.id}`;
    const signed = () => request(target, path.slice(1), { headers: { authorization: mldsaHeader(keys, 'GET', path) } });
    await expectContract(I, 'GET /accounts/{id}', await signed(), 404); // D-128: outside the key's accounts
    const lifted = await admin(target, 'PATCH', `/mldsa-keys/${registered.id}`, { accountIds: null });
    await expectContract(A, 'PATCH /mldsa-keys/{id}', lifted, 200);
    expect(lifted.json).toMatchObject({ accountIds: null, publicKey });
    await expectContract(I, 'GET /accounts/{id}', await signed(), 200);

    await expectContract(
      A,
      'DELETE /mldsa-keys/{id}',
      await admin(target, 'DELETE', `/mldsa-keys/${registered.id}`),
      204,
    );
    await expectContract(I, 'GET /accounts/{id}', await signed(), 401);
    const patch = await admin(target, 'PATCH', `/mldsa-keys/${registered.id}`, { name: 'x' });
    await expectContract(A, 'PATCH /mldsa-keys/{id}', patch, 409);
    expect(patch.json).toMatchObject({ code: 'REVOKED' });
    await expectContract(
      A,
      'DELETE /mldsa-keys/{id}',
      await admin(target, 'DELETE', '/mldsa-keys/mlk_01JD41B7N3P6Q9R2S5T8V1W4XC'),
      404,
    );
  });
});

describe('administrator authentication (D-048, D-058)', () => {
  it('answers 401 without the admin token and 403 for an institutional key', async () => {
    await expectContract(A, 'GET /api-keys', await admin(target, 'GET', '/api-keys', undefined, null), 401);
    await expectContract(
      A,
      'POST /accounts',
      await admin(target, 'POST', '/accounts', accountBody('x@y.example'), `Bearer svcadm_${'A'.repeat(43)}`),
      401,
    );
    const key = (await admin(target, 'POST', '/api-keys', { name: 'k', permissions: ['accounts:read'] })).json as Key;
    await expectContract(
      A,
      'GET /api-keys',
      await admin(target, 'GET', '/api-keys', undefined, `Bearer ${key.token}`),
      403,
    );
    await expectContract(
      A,
      'POST /kek/rotate',
      await admin(target, 'POST', '/kek/rotate', undefined, `Bearer ${key.token}`),
      403,
    );
  });
});
