// The managed-account tier (spec rule 8, D-127) against the in-process reference stack: sign up proves the
// email with a code the service sends to a real SMTP server (D-210), splits 2-of-3 on the device and uploads
// only the password-sealed service share and an auth key; recovery on a new device needs the password and
// the guardian's share; the service's data alone recovers nothing; a taken and a free email get answers of
// the same shape (D-212).
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../generated/wallet/client/index.ts';
import * as sdk from '../../generated/wallet/sdk.gen.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import {
  closeAccount,
  type ManagedError,
  managedAuthKey,
  normaliseEmail,
  recover,
  requestSignUpCode,
  signIn,
  signUp,
  type SignUpOptions,
  type SignUpResult,
} from '../../src/client/wallet/managed.ts';
import {
  openServiceShare,
  recoverFromShares,
  RecoveryError,
  sealServiceShare,
  splitForGuardians,
} from '../../src/client/wallet/recovery.ts';
import { authorizedClient, type Session } from '../../src/client/wallet/session.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../wallet/smtp-receiver.ts';
import { answered } from './answered.ts';
import { FAST_ARGON2, tlsFetch } from './support.ts';

const PASSWORD = 'correct horse battery staple';
const EMAIL = '  Alice@Example.COM ';
const fast = { authParams: FAST_ARGON2, sealParams: FAST_ARGON2 };
const CODE = /Your code is (\d{8})\./;

let target: Target;
let client: Client;
let receiver: SmtpReceiver;
let tls: typeof fetch;
/** Every request body sent to the service, to show what it was (and was not) given. */
const sent: string[] = [];
beforeAll(async () => {
  receiver = await startSmtpReceiver();
  // The 20/s window of the other wallet routes (D-024) is lifted: this file tests the 5/s /auth and /managed
  // sign-in window, which stays, and every request into it goes through `answered` or the patient client.
  target = await referenceTarget({ env: { SVC_SMTP_URL: receiver.url, SVC_RATE_LIMIT_WALLET: '0' } });
  tls = tlsFetch(target.caCert!);
  const recording: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    sent.push(`${request.url} ${request.body ? await request.clone().text() : ''}`);
    return tls(request);
  };
  client = createClient({ baseUrl: target.wallet!.origin, fetch: recording });
});
afterAll(async () => {
  await target?.close?.();
  await receiver?.close();
});

/** The same for a raw request: the status and the body's text. */
async function raw(what: string, status: number, path: string, init: RequestInit = {}) {
  const result = await answered(what, status, async () => ({
    response: await tls(new URL(path, target.wallet), init),
  }));
  return { text: await result.response!.text(), headers: [...result.response!.headers.keys()].sort() };
}

/** The member names of a JSON text, in order, at every depth: its shape without its values. */
const shape = (text: string) =>
  JSON.stringify(JSON.parse(text), (_k, v) => (v !== null && typeof v === 'object' ? v : typeof v));

/** Asks for a code for `email` with `session` and reads it from the mailbox (only messages sent from now on). */
async function emailCode(email: string, session: Pick<Session, 'token'>): Promise<string> {
  const from = receiver.messages.length;
  await requestSignUpCode(client, email, session);
  return receiver.waitFor(normaliseEmail(email), CODE, from);
}

/** Both steps of sign-up: the code to the email, then the account with the sealed share. */
async function openAccount(
  wallet: Wallet,
  email: string,
  password: string,
  options: Partial<SignUpOptions> = {},
): Promise<SignUpResult> {
  const session = options.session ?? (await wallet.login(client, { register: !options.session }));
  const code = await emailCode(email, session);
  return signUp(client, email, password, wallet, { ...fast, ...options, session, emailCode: code });
}

const bearer = (session: Pick<Session, 'token'>) => ({
  authorization: `Bearer ${session.token}`,
  'content-type': 'application/json',
});

describe('managed-account tier', () => {
  const { wallet, mnemonic } = Wallet.create();
  let kept: SignUpResult;

  it('signs up with the emailed code: the device keeps two shares, the service gets one sealed share and an auth key', async () => {
    kept = await openAccount(wallet, EMAIL, PASSWORD);
    expect(kept.account).toMatchObject({ svcId: wallet.svcId, email: 'alice@example.com' });
    expect(kept.deviceShare.holder).toBe('device');
    expect(kept.guardianShare.holder).toBe('guardian');
    const uploads = sent.join('\n');
    expect(uploads).toContain('/managed/email-codes');
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
    // The salt of an unknown email is stable.
    const a = await answered('GET /managed/salt (unknown)', 200, () =>
      sdk.walletGetManagedSalt({ client, query: { email: 'nobody@example.com' } }),
    );
    const b = await answered('GET /managed/salt (unknown, other case)', 200, () =>
      sdk.walletGetManagedSalt({ client, query: { email: 'NOBODY@example.com' } }),
    );
    expect(a.data?.authKdf.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.data).toEqual(b.data);
  });

  it('a taken and a free email get answers of the same shape, byte for byte but for the values (D-210, D-212)', async () => {
    const { wallet: other, mnemonic: otherMnemonic } = Wallet.create();
    const session = await other.login(client);
    const free = 'carol@example.com';
    // The salt: an account's (from the database) and a stand-in (built in code), same members, same order.
    const knownSalt = await raw('GET /managed/salt (taken)', 200, '/managed/salt?email=alice%40example.com');
    const unknownSalt = await raw('GET /managed/salt (free)', 200, `/managed/salt?email=${encodeURIComponent(free)}`);
    expect(shape(knownSalt.text)).toBe(shape(unknownSalt.text));
    expect(knownSalt.headers).toEqual(unknownSalt.headers);
    // Asking for a code: 202 alike; only the mailboxes differ (a notice to the owner, a code to the free one).
    const from = receiver.messages.length;
    const post = (body: object) => ({ method: 'POST', headers: bearer(session), body: JSON.stringify(body) });
    const codes = '/managed/email-codes';
    const onTaken = await raw('POST /managed/email-codes (taken)', 202, codes, post({ email: 'alice@example.com' }));
    const onFree = await raw('POST /managed/email-codes (free)', 202, codes, post({ email: free }));
    expect(shape(onTaken.text)).toBe(shape(onFree.text));
    expect(onTaken.headers).toEqual(onFree.headers);
    await receiver.waitFor(free, CODE, from);
    await receiver.waitFor('alice@example.com', /(already has one)/, from);
    const codesToAlice = receiver.messages
      .slice(from)
      .filter((m) => m.to.includes('alice@example.com') && CODE.test(m.text));
    expect(codesToAlice).toEqual([]);
    // Opening with a guessed code: the very same refusal for both, byte for byte.
    const shares = await splitForGuardians(otherMnemonic);
    const sealedShare = await sealServiceShare(shares.service, PASSWORD, { params: FAST_ARGON2 });
    const guess = (email: string) =>
      post({
        email,
        emailCode: '31415926',
        authKdf: { name: 'argon2id', v: 19, ...FAST_ARGON2, salt: 'q3Xl0Rk9V1bXb7wS2aZr5A' },
        authKey: 'ab'.repeat(32),
        sealedShare,
      });
    const takenGuess = await raw(
      'POST /managed/accounts (taken)',
      400,
      '/managed/accounts',
      guess('alice@example.com'),
    );
    const freeGuess = await raw('POST /managed/accounts (free)', 400, '/managed/accounts', guess(free));
    expect(takenGuess).toEqual(freeGuess);
    expect(JSON.parse(takenGuess.text)).toMatchObject({ code: 'EMAIL_CODE_INVALID' });
  });

  it("the service's data cannot recover the wallet: one sealed share and a hash of a different key", async () => {
    const token = await signIn(client, EMAIL, PASSWORD);
    const held = await answered('GET /managed/share', 200, () =>
      sdk.walletGetManagedShare({ client: authorizedClient(client, token) }),
    );
    const sealed = held.data!.sealedShare;
    // The auth key the server saw does not open the share, and without the password nothing does.
    const salt = await answered('GET /managed/salt', 200, () =>
      sdk.walletGetManagedSalt({ client, query: { email: EMAIL.trim() } }),
    );
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
    await answered('GET /history with a managed token', 401, () =>
      sdk.walletGetHistory({
        client: authorizedClient(client, token),
        query: { chainId: '1111111', address: wallet.address('1111111') },
      }),
    );
  });

  it('holds at most one share: the identity is refused until the account is closed; a taken email gets no code', async () => {
    const session = await wallet.login(client, { register: false });
    const again = await requestSignUpCode(client, 'other@example.com', session).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, code: 'MANAGED_ACCOUNT_EXISTS' });
    // Another identity cannot take the email: its request is answered, but no code reaches it, and a guess fails.
    const other = Wallet.create().wallet;
    const otherSession = await other.login(client);
    await requestSignUpCode(client, 'ALICE@example.com', otherSession);
    const taken = await signUp(client, 'ALICE@example.com', 'another password', other, {
      ...fast,
      session: otherSession,
      emailCode: '27182818',
    }).catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 400, code: 'EMAIL_CODE_INVALID' });
    // Closing removes the share; a new deposit (a fresh split, a fresh code) then replaces it.
    await closeAccount(client, await signIn(client, EMAIL, PASSWORD));
    await answered('GET /managed/share after closing', 404, () =>
      sdk.walletGetManagedShare({ client: authorizedClient(client, session) }),
    );
    const fresh = await openAccount(wallet, EMAIL, 'a new password', { session });
    expect((await recover(client, EMAIL, 'a new password', fresh.guardianShare)).svcId).toBe(wallet.svcId);
    // The old guardian share belongs to the old split: it does not combine with the new service share.
    await expect(recover(client, EMAIL, 'a new password', kept.guardianShare)).rejects.toThrow(RecoveryError);
  });

  it('refuses a share labelled for another identity, any body carrying the password, and 4 GiB of Argon2id memory', async () => {
    const other = Wallet.create().wallet;
    const session = await other.login(client);
    const held = await answered('GET /managed/share', 200, async () =>
      sdk.walletGetManagedShare({
        client: authorizedClient(client, await signIn(client, EMAIL, 'a new password')),
      }),
    );
    const { sealedShare } = held.data!;
    const body = {
      email: 'bob@example.com',
      emailCode: '00000000',
      authKdf: { name: 'argon2id' as const, v: 19 as const, ...FAST_ARGON2, salt: 'q3Xl0Rk9V1bXb7wS2aZr5A' },
      authKey: 'ab'.repeat(32),
      sealedShare,
    };
    const mislabelled = await answered('POST /managed/accounts (another identity)', 400, () =>
      sdk.walletCreateManagedAccount({ client: authorizedClient(client, session), body }),
    );
    expect(mislabelled.error).toMatchObject({ code: 'SHARE_LABEL_MISMATCH' });
    const withPassword = await answered('POST /managed/accounts (with the password)', 400, () =>
      sdk.walletCreateManagedAccount({
        client: authorizedClient(client, session),
        body: { ...body, password: PASSWORD } as never,
      }),
    );
    expect(withPassword.error).toMatchObject({ code: 'PRIVATE_MATERIAL_REFUSED' });
    // D-211: the KDF poisoning of the squatting attack (4 GiB, 64 passes) is refused before anything is stored.
    const poisoned = await raw('POST /managed/accounts (4 GiB)', 400, '/managed/accounts', {
      method: 'POST',
      headers: bearer(session),
      body: JSON.stringify({ ...body, authKdf: { ...body.authKdf, memoryKiB: 4194304, passes: 64 } }),
    });
    expect(JSON.parse(poisoned.text)).toEqual({
      error: '"authKdf.memoryKiB" expected 8192 to 262144 (8 to 256 MiB, D-211), got 4194304',
      code: 'INVALID_PARAMETER',
    });
  });

  it('the client refuses to derive with parameters past the bounds, whatever a server hands it', async () => {
    const refused = await managedAuthKey(PASSWORD, {
      memoryKiB: 8192,
      passes: 64,
      parallelism: 1,
      salt: 'q3Xl0Rk9V1bXb7wS2aZr5A',
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'ManagedError', code: 'KDF_OUT_OF_BOUNDS' });
  });

  it('a burst past the 5/s sign-in window is waited out, not read as a missing body', async () => {
    // Over two kept-alive connections (no handshake per request) 12 requests land well within one second.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 2, ca: target.caCert! });
    const get = () =>
      new Promise<number>((resolve, reject) =>
        https
          .get(new URL('/managed/salt?email=burst%40example.com', target.wallet), { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject),
      );
    const burst = await Promise.all(Array.from({ length: 12 }, get));
    expect(burst).toContain(429);
    const salt = await answered('GET /managed/salt after a burst', 200, () =>
      sdk.walletGetManagedSalt({ client, query: { email: 'burst@example.com' } }),
    );
    expect(salt.data?.email).toBe('burst@example.com');
    // The library waits out the window too: its answer is the sign-in's own (401 for no account), not a 429.
    await Promise.all(Array.from({ length: 12 }, get));
    agent.destroy();
    const refused = await signIn(client, 'burst@example.com', PASSWORD).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'ManagedError', status: 401, code: 'INVALID_CREDENTIALS' });
  });
});
