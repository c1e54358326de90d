// The login helper (challenge -> both signatures -> verify -> token) and the sync client against the
// in-process reference stack (conformance/targets/reference.ts): real TLS, the real wallet server, real keys.
// The server's BIP-137 and TIP-191 checks are an independent implementation of what the client signs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../generated/wallet/client/index.ts';
import * as sdk from '../../generated/wallet/sdk.gen.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { fetchFeeConfig } from '../../src/client/wallet/fees.ts';
import {
  authorizedClient,
  checkChallengeMessage,
  SessionError,
  verifyAuthorizationRecord,
} from '../../src/client/wallet/session.ts';
import { SyncClient } from '../../src/client/wallet/sync-client.ts';
import { createSyncDevice } from '../../src/client/wallet/sync.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { answered } from './answered.ts';
import { TEST_MNEMONIC, tlsFetch } from './support.ts';

let target: Target;
let client: Client;
beforeAll(async () => {
  // The /auth/* window stays at 5/s (D-024): the login helper and `answered` wait out its 429s. The 20/s window
  // of the other wallet routes is not what this file tests, and is lifted.
  target = await referenceTarget({ env: { SVC_RATE_LIMIT_WALLET: '0' } });
  client = createClient({ baseUrl: target.wallet!.origin, fetch: tlsFetch(target.caCert!) });
});
afterAll(async () => {
  await target?.close?.();
});

describe('session login against the reference stack', () => {
  const wallet = Wallet.fromMnemonic(TEST_MNEMONIC);

  it('registers, signs the challenge with both keys and gets a token that verifies against the JWKS', async () => {
    const session = await wallet.login(client);
    expect(session.isNew).toBe(true);
    expect(session.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(session.claims).toMatchObject({
      sub: wallet.svcId,
      addr: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      chl: session.nonce,
    });
    expect(session.claims.exp - session.claims.iat).toBe(900); // D-018
    expect(session.message).toContain(`- svc:${wallet.svcId}`);
    // The session token opens the endpoints that need it.
    await answered('GET /history with the token', 200, () =>
      sdk.walletGetHistory({
        client: authorizedClient(client, session),
        query: { chainId: '1111111', address: session.address },
      }),
    );
    await answered('GET /history without a token', 401, () =>
      sdk.walletGetHistory({ client, query: { chainId: '1111111', address: session.address } }),
    );
  });

  it('logs in again with the Bitcoin (BIP-137) and the Tron (TIP-191) key: registration is idempotent', async () => {
    const btc = await wallet.login(client, { chain: 'bitcoin' });
    expect(btc.isNew).toBe(false);
    expect(btc.claims.addr).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    const tron = await wallet.login(client, { chain: 'tron' });
    expect(tron.claims.addr).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it('the authorisation record re-verifies with no trust in the service; a changed record does not', async () => {
    const session = await wallet.login(client, { chain: 'tron', register: false });
    const record = await answered('GET /auth/records/{nonce}', 200, () =>
      sdk.walletGetAuthorizationRecord({ client, path: { nonce: session.nonce } }),
    );
    expect(record.data?.message).toBe(session.message);
    expect(verifyAuthorizationRecord(record.data!)).toBe(true);
    expect(
      verifyAuthorizationRecord({ ...record.data!, message: record.data!.message.replace('Version: 1', 'Version: 2') }),
    ).toBe(false);
  });

  it('refuses to sign a challenge for another domain, address or identity', async () => {
    await expect(wallet.login(client, { expectedDomain: 'wallet.example' })).rejects.toThrow(SessionError);
    // The refused login used the /auth/* window (5/s): a 429 here is waited out, not read as a missing body.
    const challenge = await answered('POST /auth/challenge', 200, () =>
      sdk.walletCreateChallenge({ client, body: { address: wallet.address('1111111'), svcId: wallet.svcId } }),
    );
    const { nonce, message } = challenge.data!;
    const domain = new URL(target.wallet!.origin).host;
    expect(() =>
      checkChallengeMessage(message, { domain, address: wallet.address('1111111'), svcId: wallet.svcId, nonce }),
    ).not.toThrow();
    expect(() =>
      checkChallengeMessage(message, { domain, address: wallet.address('1111111', 1), svcId: wallet.svcId, nonce }),
    ).toThrow(/address/);
    expect(() =>
      checkChallengeMessage(message, { domain, address: wallet.address('1111111'), svcId: '0000000000000000', nonce }),
    ).toThrow(/svc:/);
    expect(() =>
      checkChallengeMessage(message, {
        domain,
        address: wallet.address('1111111'),
        svcId: wallet.svcId,
        nonce,
        now: new Date(Date.now() + 600_000),
      }),
    ).toThrow(/expired/);
  });

  it('reads the fee configuration the client must honour before signing', async () => {
    const fees = await fetchFeeConfig(() => answered('GET /fees', 200, () => sdk.walletGetFeeConfig({ client })));
    expect(Number.isInteger(fees.feeBps)).toBe(true);
  });
});

describe('cross-device sync through the server (it stores only ciphertext)', () => {
  it('two devices of one identity exchange state; an untrusted device gets nothing', async () => {
    const laptopWallet = Wallet.fromMnemonic(TEST_MNEMONIC);
    const phoneWallet = Wallet.fromMnemonic(TEST_MNEMONIC);
    const session = await laptopWallet.login(client, { chain: 'tron' });
    const authed = authorizedClient(client, session);
    const laptop = new SyncClient(authed, laptopWallet.identity, laptopWallet.syncDevice);
    const phone = new SyncClient(authed, phoneWallet.identity, phoneWallet.syncDevice);
    const intruder = createSyncDevice(); // a key the server (or anyone with a token) slipped into the list
    expect((await laptop.register('laptop')).isNew).toBe(true);
    await phone.register('phone');
    await new SyncClient(authed, laptopWallet.identity, intruder).register('unknown');
    laptop.trustedDevices.add(phone.device.deviceId);
    phone.trustedDevices.add(laptop.device.deviceId);

    const state = new TextEncoder().encode(JSON.stringify({ customNetworks: [{ chainId: '31337' }] }));
    expect(await laptop.push(state, 1)).toEqual([phone.device.deviceId]); // never sealed to the intruder
    const pulled = await phone.pull();
    expect(pulled.refused).toEqual([]);
    expect(new TextDecoder().decode(pulled.accepted[0]!.state)).toBe(new TextDecoder().decode(state));
    // The same envelope again is a replay: refused by seq.
    expect((await phone.pull()).refused[0]?.reason).toMatch(/replayed or rolled-back/);
    await laptop.remove(intruder.deviceId);
    expect((await laptop.devices()).map((d) => d.deviceId).sort()).toEqual(
      [laptop.device.deviceId, phone.device.deviceId].sort(),
    );
  });
});
