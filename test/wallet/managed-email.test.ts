// The managed tier proves an email before binding it (D-210), bounds the Argon2id parameters it accepts
// (D-211), and answers the same way, in one member order, whether or not an email is taken (D-212). The
// service runs on a real PGlite database and sends its mail to a real SMTP server (smtp-server).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../src/clock.ts';
import { splitForGuardians, sealServiceShare } from '../../src/client/wallet/recovery.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { createMailer, LOG_DELIVERY_NOTICE, type Mailer } from '../../src/server/mail/mailer.ts';
import { CODE_TTL_MS } from '../../src/server/wallet/managed-codes.ts';
import { ManagedService } from '../../src/server/wallet/managed.ts';
import { serviceKeyFromSeed, type ServiceKey } from '../../src/server/wallet/keys.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { walletManagedAccounts } from '../../src/storage/schema.ts';
import { FAST_ARGON2 } from '../wallet-client/support.ts';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.ts';

const CODE = /Your code is (\d{8})\./;
const IP = '192.0.2.10';

let database: OpenDatabase;
let receiver: SmtpReceiver;
let key: ServiceKey;
let clock: OffsetClock;
let mailer: Mailer;
const logs: string[] = [];
const log = { warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };

beforeAll(async () => {
  [database, receiver, key] = await Promise.all([
    openDatabase({ dataDir: null }),
    startSmtpReceiver(),
    serviceKeyFromSeed(new Uint8Array(randomBytes(32))),
  ]);
  mailer = createMailer({ smtpUrl: receiver.url, from: 'svckit <no-reply@bank.example>', log });
});
afterAll(async () => {
  await mailer?.close();
  await receiver?.close();
  await database?.close();
});
beforeEach(async () => {
  clock = new OffsetClock();
  await database.db.delete(walletManagedAccounts);
});

/** A service instance on the shared database; `signingKey` is the key every instance shares. */
const service = (limits = { perEmail: 5, perIp: 0 }, signingKey = key, through = mailer) =>
  new ManagedService(database.db, clock, undefined as never, signingKey.privateKey, { mailer: through, limits });

/** A fresh address per test, so the per-email bounds of one test do not reach another. */
const address = (name: string) => `${name}-${randomBytes(4).toString('hex')}@bank.example`;

const sealed = new Map<string, Awaited<ReturnType<typeof sealServiceShare>>>();

/** A well-formed account body for `wallet`, with its Argon2id parameters and the code. */
async function body(wallet: Wallet, email: string, emailCode: string, kdf: object = FAST_ARGON2) {
  let share = sealed.get(wallet.svcId);
  if (!share) {
    const shares = await splitForGuardians(wallet.revealMnemonic());
    share = await sealServiceShare(shares.service, 'a password', { params: FAST_ARGON2 });
    sealed.set(wallet.svcId, share);
  }
  const sealedShare = structuredClone(share);
  const salt = randomBytes(16).toString('base64url');
  return {
    email,
    emailCode,
    authKdf: { name: 'argon2id', v: 19, ...FAST_ARGON2, ...kdf, salt },
    authKey: 'ab'.repeat(32),
    sealedShare,
  };
}

/** Asks for a code for `email` as `wallet` and reads it from the mailbox. */
async function codeFor(managed: ManagedService, wallet: Wallet, email: string): Promise<string> {
  await managed.requestCode(wallet.svcId, { email }, IP);
  return receiver.waitFor(email, CODE);
}

/** The member names of a JSON text, in order, at every depth: its shape without its values. */
const shape = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (v !== null && typeof v === 'object' ? v : typeof v));

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal, got a success');
    },
    (error: { code?: string; message?: string; headers?: Record<string, string> }) => error,
  );

describe('proof of the email (D-210)', () => {
  it('a free email gets a code by SMTP; the account opens only with it, once', async () => {
    const managed = service();
    const wallet = Wallet.create().wallet;
    const email = address('alice');
    const code = await codeFor(managed, wallet, email);
    const message = receiver.messages.find((m) => m.to.includes(email))!;
    expect(message.text).toContain(wallet.svcId);
    const wrong = await refusal(
      managed.create(wallet.svcId, await body(wallet, email, code === '00000000' ? '00000001' : '00000000')),
    );
    expect(wrong).toMatchObject({ code: 'EMAIL_CODE_INVALID' });
    const account = await managed.create(wallet.svcId, await body(wallet, email, code));
    expect(account).toMatchObject({ svcId: wallet.svcId, email });
    // Single use: after closing the account the same code opens nothing.
    await managed.remove(wallet.svcId);
    const again = await refusal(managed.create(wallet.svcId, await body(wallet, email, code)));
    expect(again).toMatchObject({ code: 'EMAIL_CODE_INVALID' });
  });

  it('a taken email gets a notice to its owner, no code, and the same answers as a free one', async () => {
    const managed = service();
    const owner = Wallet.create().wallet;
    const taken = address('owner');
    await managed.create(owner.svcId, await body(owner, taken, await codeFor(managed, owner, taken)));
    const squatter = Wallet.create().wallet;
    const free = address('free');
    const onTaken = await managed.requestCode(squatter.svcId, { email: taken }, IP);
    const onFree = await managed.requestCode(squatter.svcId, { email: free }, IP);
    expect(shape(onTaken)).toBe(shape(onFree));
    expect(onTaken.email).toBe(taken);
    await receiver.waitFor(free, CODE);
    const notice = await receiver.waitFor(taken, /(already has one)/);
    expect(notice).toBe('already has one');
    const toTaken = receiver.messages.filter((m) => m.to.includes(taken));
    expect(toTaken.filter((m) => CODE.test(m.text))).toHaveLength(1); // the owner's own code, nothing for the squatter
    // With a guessed code, a taken and a free email get the very same refusal.
    const a = await refusal(managed.create(squatter.svcId, await body(squatter, taken, '12345678')));
    const b = await refusal(managed.create(squatter.svcId, await body(squatter, free, '12345678')));
    expect([a.code, a.message]).toEqual([b.code, b.message]);
    expect(a.code).toBe('EMAIL_CODE_INVALID');
  });

  it('a code expires after 10 minutes (injected clock) and allows 5 tries', async () => {
    const managed = service();
    const wallet = Wallet.create().wallet;
    const late = address('late');
    const code = await codeFor(managed, wallet, late);
    clock.advance(CODE_TTL_MS + 1);
    expect(await refusal(managed.create(wallet.svcId, await body(wallet, late, code)))).toMatchObject({
      code: 'EMAIL_CODE_INVALID',
    });
    const guessed = address('guessed');
    const right = await codeFor(managed, wallet, guessed);
    const wrong = right === '99999999' ? '99999998' : '99999999';
    for (let i = 0; i < 5; i++)
      expect(await refusal(managed.create(wallet.svcId, await body(wallet, guessed, wrong)))).toMatchObject({
        code: 'EMAIL_CODE_INVALID',
      });
    expect(await refusal(managed.create(wallet.svcId, await body(wallet, guessed, right)))).toMatchObject({
      code: 'EMAIL_CODE_INVALID',
    });
  });

  it('bounds codes per email (silently) and per IP (429 with Retry-After)', async () => {
    // The three requests go through a mailer of their own, whose close waits for every message it was given:
    // after it, whatever the service sent has reached the receiver. The counts are in the database, so
    // a second instance with the shared mailer goes on from them.
    const own = createMailer({ smtpUrl: receiver.url, from: 'svckit <no-reply@bank.example>', log });
    const flooded = service({ perEmail: 2, perIp: 3 }, key, own);
    const wallet = Wallet.create().wallet;
    const email = address('flood');
    const ip = '198.51.100.7';
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await flooded.requestCode(wallet.svcId, { email }, ip));
    expect(new Set(answers.map(shape)).size).toBe(1);
    await own.close();
    await receiver.waitFor(email, CODE);
    expect(receiver.messages.filter((m) => m.to.includes(email))).toHaveLength(2);
    const managed = service({ perEmail: 2, perIp: 3 });
    await managed.requestCode(wallet.svcId, { email: address('other') }, ip);
    const limited = await refusal(managed.requestCode(wallet.svcId, { email: address('more') }, ip));
    expect(limited).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.headers?.['retry-after'])).toBeGreaterThan(3000);
    // Another IP is not held back; an hour later this one is not either.
    await managed.requestCode(wallet.svcId, { email: address('more') }, '198.51.100.8');
    clock.advance(60 * 60_000 + 1);
    await managed.requestCode(wallet.svcId, { email: address('later') }, ip);
  });

  it('an account opened before emails were proven does not hold the email against a proven claim', async () => {
    const managed = service();
    const victim = address('victim');
    const squatter = Wallet.create().wallet;
    const poisoned = await body(squatter, victim, '00000000', { memoryKiB: 4194304, passes: 64 });
    await database.db.insert(walletManagedAccounts).values({
      svcId: squatter.svcId,
      email: victim,
      authKdf: { memoryKiB: 4194304, passes: 64, parallelism: 1, salt: poisoned.authKdf.salt },
      verifierSalt: randomBytes(16),
      verifier: randomBytes(32),
      sealedShare: poisoned.sealedShare as unknown as Record<string, unknown>,
      createdAt: new Date(clock.now()),
      emailVerifiedAt: null,
    });
    const owner = Wallet.create().wallet;
    const account = await managed.create(owner.svcId, await body(owner, victim, await codeFor(managed, owner, victim)));
    expect(account.svcId).toBe(owner.svcId);
    const salt = await managed.salt({ email: victim });
    expect(salt.authKdf).toMatchObject({ memoryKiB: FAST_ARGON2.memoryKiB, passes: FAST_ARGON2.passes });
  });

  it('refuses an address that stops being one once normalised (a full-width @ becomes a second @)', async () => {
    const wallet = Wallet.create().wallet;
    const refused = await refusal(service().requestCode(wallet.svcId, { email: 'a\uff20b@bank.example' }, IP));
    expect(refused).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(refused.message).toContain('once normalised');
  });

  it('a code issued by one instance is accepted by another that shares the service key', async () => {
    const one = service();
    const other = service();
    const wallet = Wallet.create().wallet;
    const email = address('cluster');
    const code = await codeFor(one, wallet, email);
    expect((await other.create(wallet.svcId, await body(wallet, email, code))).email).toBe(email);
  });
});

describe('Argon2id bounds (D-211)', () => {
  it('refuses 4 GiB, 64 passes and 16 lanes with 400 naming the field', async () => {
    const managed = service();
    const wallet = Wallet.create().wallet;
    const email = address('bomb');
    const code = await codeFor(managed, wallet, email);
    const cases: [object, string][] = [
      [{ memoryKiB: 4194304 }, '"authKdf.memoryKiB" expected 8192 to 262144 (8 to 256 MiB, D-211), got 4194304'],
      [{ passes: 64 }, '"authKdf.passes" expected 1 to 8 (D-211), got 64'],
      [{ parallelism: 16 }, '"authKdf.parallelism" expected 1 to 8 (D-211), got 16'],
    ];
    for (const [kdf, message] of cases) {
      const refused = await refusal(managed.create(wallet.svcId, await body(wallet, email, code, kdf)));
      expect(refused).toMatchObject({ code: 'INVALID_PARAMETER', message });
    }
    const sealed = await body(wallet, email, code);
    sealed.sealedShare.kdf.memoryKiB = 4194304;
    expect(await refusal(managed.create(wallet.svcId, sealed))).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: '"sealedShare.kdf.memoryKiB" expected 8192 to 262144 (8 to 256 MiB, D-211), got 4194304',
    });
    // The refusals spent no try of the code: it still opens the account.
    expect((await managed.create(wallet.svcId, await body(wallet, email, code))).svcId).toBe(wallet.svcId);
  });
});

describe('one answer for known and unknown emails (D-212)', () => {
  it('the salt of an account and of an unknown email have the same members in the same order', async () => {
    const managed = service();
    const wallet = Wallet.create().wallet;
    const known = address('known');
    await managed.create(wallet.svcId, await body(wallet, known, await codeFor(managed, wallet, known)));
    const real = await managed.salt({ email: known });
    const standIn = await managed.salt({ email: address('unknown') });
    expect(shape(real)).toBe(shape(standIn));
    expect(Object.keys(real.authKdf)).toEqual(['name', 'v', 'memoryKiB', 'passes', 'parallelism', 'salt']);
    // The sealed share comes back in the contract's order too, not the database's.
    const share = await managed.share(wallet.svcId);
    expect(Object.keys(share.sealedShare)).toEqual(['format', 'version', 'kdf', 'cipher', 'ciphertext', 'label']);
    expect(Object.keys(share.sealedShare.kdf)).toEqual(['name', 'v', 'memoryKiB', 'passes', 'parallelism', 'salt']);
  });

  it('instances that share the service key answer the same stand-in salt; the key is what decides it', async () => {
    const email = address('nobody');
    const one = await service().salt({ email });
    const other = await service().salt({ email });
    expect(other).toEqual(one);
    const elsewhere = await service(undefined, await serviceKeyFromSeed(new Uint8Array(randomBytes(32)))).salt({
      email,
    });
    expect(elsewhere.authKdf.salt).not.toBe(one.authKdf.salt);
  });
});

describe('delivery and logs (D-213)', () => {
  it('without SMTP, says so once at start and writes the code to the log', async () => {
    const lines: string[] = [];
    const devLog = { warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const dev = createMailer({ smtpUrl: undefined, from: 'svckit <no-reply@localhost>', log: devLog });
    expect(lines).toEqual([LOG_DELIVERY_NOTICE]);
    const wallet = Wallet.create().wallet;
    const email = address('dev');
    await service(undefined, key, dev).requestCode(wallet.svcId, { email }, IP);
    const code = CODE.exec(lines.join('\n'))?.[1];
    expect(code).toMatch(/^\d{8}$/);
    expect(lines[1]).toContain(email);
  });

  it('with SMTP, neither a code nor the SMTP password reaches the log, even when sending fails', async () => {
    const lines: string[] = [];
    const smtpLog = { warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const badUrl = receiver.url.replace(encodeURIComponent(receiver.password), 'wrong-password-9d2e');
    const failing = createMailer({ smtpUrl: badUrl, from: 'svckit <no-reply@bank.example>', log: smtpLog });
    const working = createMailer({ smtpUrl: receiver.url, from: 'svckit <no-reply@bank.example>', log: smtpLog });
    const wallet = Wallet.create().wallet;
    const lost = address('lost');
    const kept = address('kept');
    const before = receiver.failedLogins;
    await service(undefined, key, failing).requestCode(wallet.svcId, { email: lost }, IP);
    await service(undefined, key, working).requestCode(wallet.svcId, { email: kept }, IP);
    const code = await receiver.waitFor(kept, CODE);
    await Promise.all([failing.close(), working.close()]);
    expect(receiver.failedLogins).toBeGreaterThan(before);
    expect(lines).toEqual(['svckit mail: a message could not be sent: EAUTH (SMTP 535)']);
    const text = lines.join('\n');
    for (const secret of [code, receiver.password, 'wrong-password-9d2e', badUrl, receiver.url])
      expect(text).not.toContain(secret);
  });
});
