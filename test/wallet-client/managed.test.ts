// The managed-account tier (spec rule 8, D-127) against the in-process reference stack: sign up splits 2-of-3
// on the device and uploads only the password-sealed service share and an auth key; recovery on a new device
// needs the password and the guardian's share; the service's data alone recovers nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../generated/wallet/client/index.ts';
import * as sdk from '../../generated/wallet/sdk.gen.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import {
  closeAccount,
  type ManagedError,
  managedAuthKey,
  recover,
  signIn,
  signUp,
  type SignUpResult,
} from '../../src/client/wallet/managed.ts';
import { openServiceShare, recoverFromShares, RecoveryError } from '../../src/client/wallet/recovery.ts';
import { authorizedClient } from '../../src/client/wallet/session.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { FAST_ARGON2, tlsFetch } from './support.ts';

const PASSWORD = 'correct horse battery staple';
const EMAIL = '  Alice@Example.COM ';
const fast = { authParams: FAST_ARGON2, sealParams: FAST_ARGON2 };

let target: Target;
let client: Client;
/** Every request body sent to the service, to show what it was (and was not) given. */
const sent: string[] = [];
beforeAll(async () => {
  target = await referenceTarget();
  const tls = tlsFetch(target.caCert!);
  const recording: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    sent.push(`${request.url} ${request.body ? await request.clone().text() : ''}`);
    return tls(request);
  };
  client = createClient({ baseUrl: target.wallet!.origin, fetch: recording });
});
afterAll(async () => {
  await target?.close?.();
});

describe('managed-account tier', () => {
  const { wallet, mnemonic } = Wallet.create();
  let kept: SignUpResult;

  it('signs up: the device keeps two shares, the service gets one sealed share and an auth key', async () => {
    kept = await signUp(client, EMAIL, PASSWORD, wallet, fast);
    expect(kept.account).toMatchObject({ svcId: wallet.svcId, email: 'alice@example.com' });
    expect(kept.deviceShare.holder).toBe('device');
    expect(kept.guardianShare.holder).toBe('guardian');
    const uploads = sent.join('\n');
    expect(uploads).toContain('/managed/accounts');
    for (const secret of [PASSWORD, mnemonic, kept.deviceShare.share, kept.guardianShare.share])
      expect(uploads).not.toContain(secret);
  });

  it('recovers on a new device with the password and the guardian share', async () => {
    const restored = await recover(client, 'alice@example.com', PASSWORD, kept.guardianShare);
    expect(restored.svcId).toBe(wallet.svcId);
    expect(restored.revealMnemonic()).toBe(mnemonic);
    expect(restored.address('1111111')).toBe(wallet.address('1111111'));
  });

  it('refuses a wrong password and an unknown email with the same 401', async () => {
    const wrong = await recover(client, EMAIL, 'not the password', kept.guardianShare).catch((e: unknown) => e);
    const unknown = await signIn(client, 'nobody@example.com', PASSWORD).catch((e: unknown) => e);
    for (const error of [wrong, unknown])
      expect(error).toMatchObject({ name: 'ManagedError', status: 401, code: 'INVALID_CREDENTIALS' });
    expect((wrong as ManagedError).message).toBe((unknown as ManagedError).message);
    // The salt of an unknown email has the same shape as a real one, and is stable.
    const a = await sdk.walletGetManagedSalt({ client, query: { email: 'nobody@example.com' } });
    const b = await sdk.walletGetManagedSalt({ client, query: { email: 'NOBODY@example.com' } });
    expect(a.data?.authKdf.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.data).toEqual(b.data);
  });

  it("the service's data cannot recover the wallet: one sealed share and a hash of a different key", async () => {
    const token = await signIn(client, EMAIL, PASSWORD);
    const held = await sdk.walletGetManagedShare({ client: authorizedClient(client, token) });
    const sealed = held.data!.sealedShare;
    // The auth key the server saw does not open the share, and without the password nothing does.
    const salt = await sdk.walletGetManagedSalt({ client, query: { email: EMAIL.trim() } });
    const authKey = await managedAuthKey(PASSWORD, salt.data!.authKdf);
    await expect(openServiceShare(sealed as never, authKey)).rejects.toThrow();
    await expect(openServiceShare(sealed as never, 'guess')).rejects.toThrow();
    // Even opened, it is one share of three: alone it recovers nothing.
    const share = await openServiceShare(sealed as never, PASSWORD);
    expect(JSON.stringify(held.data)).not.toContain(share.share); // the service holds only ciphertext
    await expect(recoverFromShares([share])).rejects.toThrow(RecoveryError);
    expect(await recoverFromShares([share, kept.deviceShare])).toBe(mnemonic);
  });

  it('the managed token opens only /managed/*: it is not a session token', async () => {
    const token = await signIn(client, EMAIL, PASSWORD);
    const history = await sdk.walletGetHistory({
      client: authorizedClient(client, token),
      query: { chainId: '1111111', address: wallet.address('1111111') },
    });
    expect(history.response?.status).toBe(401);
  });

  it('holds at most one share: a second upload is 409 until the account is closed', async () => {
    const session = await wallet.login(client, { register: false });
    const again = await signUp(client, 'other@example.com', PASSWORD, wallet, { ...fast, session }).catch(
      (e: unknown) => e,
    );
    expect(again).toMatchObject({ status: 409, code: 'MANAGED_ACCOUNT_EXISTS' });
    // Another identity cannot take the email either.
    const other = Wallet.create().wallet;
    const taken = await signUp(client, 'ALICE@example.com', 'another password', other, fast).catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 409, code: 'MANAGED_ACCOUNT_EXISTS' });
    // Closing removes the share; a new deposit (a fresh split) then replaces it.
    await closeAccount(client, await signIn(client, EMAIL, PASSWORD));
    const gone = await sdk.walletGetManagedShare({ client: authorizedClient(client, session) });
    expect(gone.response?.status).toBe(404);
    const fresh = await signUp(client, EMAIL, 'a new password', wallet, { ...fast, session });
    expect((await recover(client, EMAIL, 'a new password', fresh.guardianShare)).svcId).toBe(wallet.svcId);
    // The old guardian share belongs to the old split: it does not combine with the new service share.
    await expect(recover(client, EMAIL, 'a new password', kept.guardianShare)).rejects.toThrow(RecoveryError);
  });

  it('refuses a share labelled for another identity, and any body carrying the password', async () => {
    const other = Wallet.create().wallet;
    const session = await other.login(client);
    const { sealedShare } = (
      await sdk.walletGetManagedShare({
        client: authorizedClient(client, await signIn(client, EMAIL, 'a new password')),
      })
    ).data!;
    const body = {
      email: 'bob@example.com',
      authKdf: { name: 'argon2id' as const, v: 19 as const, ...FAST_ARGON2, salt: 'q3Xl0Rk9V1bXb7wS2aZr5A' },
      authKey: 'ab'.repeat(32),
      sealedShare,
    };
    const mislabelled = await sdk.walletCreateManagedAccount({ client: authorizedClient(client, session), body });
    expect(mislabelled.response?.status).toBe(400);
    expect(mislabelled.error).toMatchObject({ code: 'SHARE_LABEL_MISMATCH' });
    const withPassword = await sdk.walletCreateManagedAccount({
      client: authorizedClient(client, session),
      body: { ...body, password: PASSWORD } as never,
    });
    expect(withPassword.error).toMatchObject({ code: 'PRIVATE_MATERIAL_REFUSED' });
  });
});
