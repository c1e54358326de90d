// An integrator's client generated from specs/institutional.openapi.yaml (hey-api,
// Node's built-in fetch), using the svckit helper signRequestsWithMldsa, reads an account and its statement
// and sends a transfer that confirms on Anvil — and the same with a bearer key. The development CA is added
// to Node's default trust store (trustTestCa: tls.setDefaultCACertificates, the in-process NODE_EXTRA_CA_CERTS). The
// Content-Digest binding of D-225 through the same stack: the helper's bound requests go through, a captured
// bound header is refused with another body, and a captured header of the specified scheme is accepted once
// with another body, the limit D-225 records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/institutional/client';
import * as sdk from '../../generated/institutional/sdk.gen';
import {
  adminJson,
  apiKey,
  A_PERMISSIONS,
  mldsaKey,
  newAccount,
  serverNow,
  wireTarget,
  type AccountView,
} from '../../conformance/checks/institutional/support.ts';
import { request } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { mlDsa65, toHex } from '../../src/crypto/index.ts';
import { contentDigest, mldsaAuthorization, signRequestsWithMldsa } from '../../src/client/mldsa-signer.ts';
import { trustTestCa } from '../support/stack.ts';

let target: Target;
let sender: AccountView;
let recipient: AccountView;

beforeAll(async () => {
  // Stock fetch does not wait out a 429: the rate limit is lifted here (institutional.sdk.* run the same flow under it).
  target = await referenceTarget({ env: { SVC_RATE_LIMIT: '0' } });
  trustTestCa(target.caCert!);
  sender = await newAccount(target, { fund: '100.00' });
  recipient = await newAccount(target);
});
afterAll(async () => {
  await target?.close?.();
});

const baseUrl = () => new URL('wallet/api/v1', target.base).href;

/** The integrator's flow through the generated SDK: read, read the statement, transfer, poll to confirmed. */
async function integratorFlow(client: ReturnType<typeof createClient>) {
  const account = await sdk.institutionalGetAccount({ client, path: { id: sender.id }, throwOnError: true });
  expect(account.data).toMatchObject({
    id: sender.id,
    reference: sender.reference,
    address: sender.address,
    status: 'approved',
  });
  const before = await sdk.institutionalGetAccountStatement({
    client,
    path: { id: sender.id },
    query: { page: 1, limit: 50 },
    throwOnError: true,
  });
  const created = await sdk.institutionalCreateTransfer({
    client,
    body: { fromAccountId: sender.id, to: recipient.address, amount: '2.50', memo: 'invoice 42' },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
    throwOnError: true,
  });
  expect(created.response.status).toBe(201);
  expect(created.data).toMatchObject({ ok: true, status: 'pending' });
  let transfer = (
    await sdk.institutionalGetTransfer({ client, path: { reference: created.data.txRef }, throwOnError: true })
  ).data;
  // Polled until it leaves 'pending', for at most 20 s (the assertion below names the status it stayed in).
  for (const deadline = Date.now() + 20_000; transfer.status === 'pending' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    transfer = (
      await sdk.institutionalGetTransfer({ client, path: { reference: created.data.txRef }, throwOnError: true })
    ).data;
  }
  expect(transfer).toMatchObject({
    txRef: created.data.txRef,
    txHash: created.data.txHash,
    status: 'confirmed',
    amount: '2.50',
    direction: 'out',
  });
  expect(transfer.blockNumber).toBeGreaterThan(0);
  expect(transfer.timestamp).toBeGreaterThan(0);
  const after = await sdk.institutionalGetAccountStatement({ client, path: { id: sender.id }, throwOnError: true });
  expect(after.data.total).toBe(before.data.total + 1);
  expect(after.data.transactions[0]).toMatchObject({
    txRef: created.data.txRef,
    direction: 'out',
    status: 'confirmed',
  });
}

describe('a generated SDK client against the reference stack', () => {
  it('signs every request with SVC-MLDSA through signRequestsWithMldsa', async () => {
    // spec: "The client generates the key pair locally and registers only the public key".
    const keys = mlDsa65.keygen();
    await adminJson(
      target,
      'POST',
      '/mldsa-keys',
      { name: 'integrator', publicKey: toHex(keys.publicKey), permissions: A_PERMISSIONS },
      201,
    );
    const client = createClient({ baseUrl: baseUrl() });
    signRequestsWithMldsa(client, keys);
    await integratorFlow(client);
  });

  it('signs the body too with the Content-Digest binding when asked (D-225)', async () => {
    const keys = await mldsaKey(target, A_PERMISSIONS);
    const client = createClient({ baseUrl: baseUrl() });
    signRequestsWithMldsa(client, keys, Date.now, { contentDigest: true });
    await integratorFlow(client);
  });

  it('works the same with a bearer svc_ key', async () => {
    const token = await apiKey(target, A_PERMISSIONS);
    const client = createClient({ baseUrl: baseUrl(), headers: { Authorization: `Bearer ${token}` } });
    await integratorFlow(client);
  });

  it('is refused (401) without the helper, and with a key the server does not know', async () => {
    const bare = await sdk.institutionalGetAccount({
      client: createClient({ baseUrl: baseUrl() }),
      path: { id: sender.id },
    });
    expect(bare.response?.status).toBe(401);
    const stranger = createClient({ baseUrl: baseUrl() });
    signRequestsWithMldsa(stranger, mlDsa65.keygen());
    const refused = await sdk.institutionalGetAccount({ client: stranger, path: { id: sender.id } });
    expect(refused.response?.status).toBe(401);
    expect(refused.error).toMatchObject({ error: expect.any(String) });
  });
});

/** POST /transfers with a raw JSON body and the given headers; resolves with the status and the error code. */
async function postTransfer(raw: string, headers: Record<string, string>): Promise<string> {
  const res = await request(target, 'wallet/api/v1/transfers', {
    method: 'POST',
    body: raw,
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers },
  });
  const code = (res.json as { code?: string } | undefined)?.code;
  return code ? `${res.status} ${code}` : String(res.status);
}

describe('a captured SVC-MLDSA header sent with another body (D-225)', () => {
  let attacker: AccountView;
  beforeAll(async () => {
    attacker = await newAccount(target);
  });
  const transfer = (to: AccountView, amount: string) =>
    JSON.stringify({ fromAccountId: sender.id, to: to.address, amount });
  const signed = (keys: Parameters<typeof mldsaAuthorization>[0], digest?: string) =>
    mldsaAuthorization(keys, 'POST', wireTarget(target, '/transfers'), serverNow(target), digest);

  it('is refused when the header binds the Content-Digest; the client request goes through once', async () => {
    const keys = await mldsaKey(target, ['transfers:write']);
    const meant = transfer(recipient, '1.00');
    const swapped = transfer(attacker, '9.00');
    const digest = contentDigest(meant);
    const captured = signed(keys, digest);
    expect(await postTransfer(swapped, { authorization: captured, 'content-digest': digest })).toBe(
      '401 INVALID_SIGNATURE',
    );
    expect(await postTransfer(swapped, { authorization: captured, 'content-digest': contentDigest(swapped) })).toBe(
      '401 INVALID_SIGNATURE',
    );
    expect(await postTransfer(swapped, { authorization: captured })).toBe('401 UNAUTHENTICATED');
    expect(await postTransfer(meant, { authorization: captured, 'content-digest': digest })).toBe('201');
    expect(await postTransfer(meant, { authorization: captured, 'content-digest': digest })).toBe(
      '401 REPLAYED_SIGNATURE',
    );
  });

  it('hashes no more than the body limit: a bound request over it is refused as any other (413)', async () => {
    const keys = await mldsaKey(target, ['transfers:write']);
    const huge = JSON.stringify({
      fromAccountId: sender.id,
      to: recipient.address,
      amount: '1.00',
      memo: 'x'.repeat(2 ** 21),
    });
    const digest = contentDigest(huge);
    const plain = await postTransfer(huge, { authorization: signed(keys) });
    expect(plain).toMatch(/^413/);
    expect(await postTransfer(huge, { authorization: signed(keys, digest), 'content-digest': digest })).toBe(plain);
  });

  it('is accepted once in the specified scheme, whose string names no body (the recorded limit)', async () => {
    const keys = await mldsaKey(target, ['transfers:write']);
    const captured = signed(keys);
    expect(await postTransfer(transfer(attacker, '0.50'), { authorization: captured })).toBe('201');
    expect(await postTransfer(transfer(recipient, '0.50'), { authorization: captured })).toBe('401 REPLAYED_SIGNATURE');
  });
});
