// D-209: a session token asked for with `scope: "dapp"` (what the wallet hands a site) opens what a site may do
// and is refused 403 PERMISSION_DENIED by the sync devices, the managed account and its guardian share and the
// changes to owner bindings; the owner's own token (no scope asked, or "owner") still opens them.
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  challenge,
  type Identity,
  jwtPart,
  newIdentity,
  pqSign,
  register,
} from '../../conformance/checks/wallet/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { systemClock } from '../../src/clock.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { serviceKeyFromSeed } from '../../src/server/wallet/keys.ts';
import { SessionTokens } from '../../src/server/wallet/tokens.ts';

let target: Target;
let identity: Identity;
beforeAll(async () => {
  target = await referenceTarget({ env: { SVC_RATE_LIMIT_WALLET_AUTH: '0' } });
  identity = newIdentity();
  const res = await register(target, identity, { keys: [{ chainId: '1111111', address: identity.chain.address }] });
  expect(res.status, res.text).toBe(200);
});
afterAll(async () => target?.close?.());

/** Signs in with both keys, asking for `scope` (none: the field is left out). */
async function signIn(scope?: 'owner' | 'dapp'): Promise<string> {
  const { message } = await challenge(target, identity);
  const body = {
    address: identity.chain.address,
    svcId: identity.svcId,
    ecdsaSig: await identity.chain.sign(message),
    pqSig: pqSign(identity, message),
    ...(scope ? { scope } : {}),
  };
  const res = await call(target, 'POST', '/auth/verify', { body });
  expect(res.status, res.text).toBe(200);
  return (res.json as { token: string }).token;
}

const DEVICE = '0123456789abcdef';
const BINDING = randomUUID();
/** Every operation a dapp token may not use, with a body that would otherwise reach the operation's checks. */
const OWNER_ONLY: [method: string, path: string, body?: unknown][] = [
  ['GET', '/sync/devices'],
  ['PUT', `/sync/devices/${DEVICE}`, {}],
  ['DELETE', `/sync/devices/${DEVICE}`],
  ['GET', `/sync/envelopes?device=${DEVICE}`],
  ['POST', '/sync/envelopes', {}],
  ['POST', '/managed/accounts', {}],
  ['GET', '/managed/share'],
  ['DELETE', '/managed/accounts'],
  ['POST', '/bindings', {}],
  ['POST', `/bindings/${BINDING}/accept`],
  ['PUT', `/bindings/${BINDING}/limits`, {}],
  ['POST', `/bindings/${BINDING}/revoke`],
];

describe('session token scope (D-209)', () => {
  it('verify issues the scope asked for, "owner" when none is asked', async () => {
    expect(jwtPart(await signIn('dapp'), 1)).toMatchObject({ sub: identity.svcId, scope: 'dapp' });
    expect(jwtPart(await signIn(), 1)).toMatchObject({ scope: 'owner' });
    expect(jwtPart(await signIn('owner'), 1)).toMatchObject({ scope: 'owner' });
    const bad = await call(target, 'POST', '/auth/verify', {
      body: {
        address: identity.chain.address,
        svcId: identity.svcId,
        ecdsaSig: `0x${'11'.repeat(65)}`,
        pqSig: '00'.repeat(3309),
        scope: 'root',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('a dapp token is refused 403 on the sync devices, the managed account and share and binding changes', async () => {
    const token = await signIn('dapp');
    for (const [method, path, body] of OWNER_ONLY) {
      const res = await call(target, method, path, { token, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.json, `${method} ${path}`).toMatchObject({
        code: 'PERMISSION_DENIED',
        error: expect.stringContaining('scope "dapp"'),
      });
    }
  });

  it('a dapp token opens what a site may do: history, reading bindings, the banking enforcement point', async () => {
    const token = await signIn('dapp');
    const history = await call(target, 'GET', `/history?chainId=1111111&address=${identity.chain.address}`, { token });
    expect(history.status, history.text).toBe(200);
    expect((await call(target, 'GET', '/bindings', { token })).status).toBe(200);
    const binding = await call(target, 'GET', `/bindings/${BINDING}`, { token });
    expect(binding.json).toMatchObject({ code: 'BINDING_NOT_FOUND' });
    const banking = await call(target, 'POST', '/banking/authorizations', {
      token,
      body: { kind: 'card', amount: { amount: '1.00', currency: 'EUR' }, counterparty: 'shop-1' },
    });
    // Past the scope: the enforcement point itself answers (this identity has no binding).
    expect(banking.status, banking.text).toBe(403);
    expect(banking.json).toMatchObject({ code: 'OWNER_BINDING_REQUIRED' });
  });

  it("the owner's token still opens every one of those operations", async () => {
    const token = await signIn();
    for (const [method, path, body] of OWNER_ONLY) {
      const res = await call(target, method, path, { token, ...(body !== undefined ? { body } : {}) });
      expect(res.json, `${method} ${path}`).not.toMatchObject({ code: 'PERMISSION_DENIED' });
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
    expect((await call(target, 'GET', '/sync/devices', { token })).status).toBe(200);
    const share = await call(target, 'GET', '/managed/share', { token });
    expect(share.json).toMatchObject({ code: 'MANAGED_ACCOUNT_NOT_FOUND' });
  });
});

describe('a session token without the scope claim (D-209)', () => {
  it('opens only what a dapp token opens', async () => {
    const key = await serviceKeyFromSeed(randomBytes(32));
    const issuer = 'https://wallet.test';
    const tokens = new SessionTokens([key], systemClock, () => issuer);
    const iat = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer, aud: issuer, sub: identity.svcId, addr: identity.chain.address, iat, nbf: iat };
    const token = await new SignJWT({ ...claims, exp: iat + 900, jti: randomUUID(), chl: '0'.repeat(32) })
      .setProtectedHeader({ alg: 'ML-DSA-65', typ: 'JWT', kid: key.kid })
      .sign(key.privateKey);
    const request = { headers: { authorization: `Bearer ${token}` } } as Parameters<SessionTokens['authenticate']>[0];
    expect(await tokens.authenticate(request)).toMatchObject({ sub: identity.svcId, scope: 'dapp' });
    const refused = await tokens.authenticateOwner(request).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RestError);
    expect(refused).toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(tokens.authenticateManaged(request)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
