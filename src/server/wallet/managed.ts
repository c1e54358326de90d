/**
 * The managed-account tier (spec rule 8: "An optional managed-account tier (email and password sign-in) stays
 * non-custodial through 2-of-3 guardian recovery: shares are split on the user's device, and the service holds
 * at most one share"). D-127. The service stores, per identity: the normalised email, the client's Argon2id
 * salt and parameters (public), scrypt(authKey) and the service share sealed under the password (D-120,
 * D-122). The password never arrives; the auth key is a different Argon2id derivation from the sealing key.
 * D-210: an email is bound only with a code sent to it; D-211: the Argon2id parameters it hands out are bounded;
 * D-212: every answer is built in one order, and a stand-in comes from a key every instance shares.
 */
import { createHmac, randomBytes, scrypt, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type {
  ManagedAccount,
  ManagedEmailCodeSent,
  ManagedSalt,
  ManagedSession,
  ManagedShare,
  SealedShare,
} from '@svckit/sdk/wallet';
import {
  zManagedAuthKdf,
  zManagedAuthKey,
  zManagedEmail,
  zManagedEmailCode,
  zSealedShare,
} from '@svckit/sdk/wallet/zod';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import type { Mailer } from '../mail/mailer.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import { saltAnswer, shareAnswer } from './managed-answers.ts';
import { type CodeLimits, EmailCodes } from './managed-codes.ts';
import {
  claimManagedAccount,
  deleteManagedAccount,
  emailHeld,
  managedByEmail,
  managedBySvcId,
  type ManagedRow,
} from './managed-store.ts';
import type { SessionTokens } from './tokens.ts';

/** D-127: scrypt parameters of the stored verifier (about 32 MiB, 0.2 s). */
export const VERIFIER_SCRYPT = Object.freeze({ N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
/** D-120's default Argon2id parameters, answered for an email with no account. */
export const DEFAULT_AUTH_KDF = Object.freeze({ memoryKiB: 64 * 1024, passes: 3, parallelism: 4 });

const KDF_EXPLAIN = {
  memoryKiB: '8192 to 262144 (8 to 256 MiB, D-211)',
  passes: '1 to 8 (D-211)',
  parallelism: '1 to 8 (D-211)',
};
const EXPLAIN = {
  email: 'an email address (local@domain, at most 254 characters)',
  emailCode: 'the 8-digit code POST /managed/email-codes sent to the email',
  ...Object.fromEntries(Object.entries(KDF_EXPLAIN).map(([k, v]) => [`authKdf.${k}`, v])),
  ...Object.fromEntries(Object.entries(KDF_EXPLAIN).map(([k, v]) => [`sealedShare.kdf.${k}`, v])),
  authKey: '64 lower-case hex characters (a 32-byte Argon2id output)',
  'authKdf.salt': 'base64url of a 16- to 64-byte salt',
  'sealedShare.label': 'guardian-share: and a 16-hex svcId',
  'sealedShare.ciphertext': 'base64url of the AES-256-GCM ciphertext and tag',
};

const kdf = zManagedAuthKdf.strict();
const sealed = zSealedShare.extend({ kdf, cipher: zSealedShare.shape.cipher.strict() }).strict();
const accountBody = z
  .object({
    email: zManagedEmail,
    emailCode: zManagedEmailCode,
    authKdf: kdf,
    authKey: zManagedAuthKey,
    sealedShare: sealed,
  })
  .strict();
const codeBody = z.object({ email: zManagedEmail }).strict();
const sessionBody = z.object({ email: zManagedEmail, authKey: zManagedAuthKey }).strict();
const saltQuery = z.object({ email: zManagedEmail }).strict();

/** D-127: emails are compared trimmed, NFKC-normalised and in lower case. */
export const normaliseEmail = (email: string) => email.trim().normalize('NFKC').toLowerCase();

/** The normalised email, which must still be one (NFKC turns a full-width "＠" into a second "@"). */
function emailOf(email: string): string {
  const normalised = normaliseEmail(email);
  if (!zManagedEmail.safeParse(normalised).success)
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `"email" expected ${EXPLAIN.email} once normalised (trimmed, NFKC, lower case), got ${JSON.stringify(normalised)}`,
    );
  return normalised;
}

const base64urlBytes = (text: string) => Buffer.from(text, 'base64url');

function verifierOf(authKey: Uint8Array, salt: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(authKey, salt, 32, VERIFIER_SCRYPT, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** What the managed tier needs besides the database: how codes go out and how many (D-210). */
export type ManagedOptions = { mailer: Mailer; limits: CodeLimits };

/** A key of its own for each use, derived from the service key every instance shares (D-212). */
const deriveKey = (seed: Uint8Array, label: string) => createHmac('sha256', label).update(seed).digest();

/** Accounts, sign-in and the sealed share of the managed tier. */
export class ManagedService {
  private readonly fakeSaltKey: Buffer;
  private readonly dummyVerifierSalt = randomBytes(16);
  private readonly codes: EmailCodes;

  /**
   * `signingKey` keys the HMAC of the salts answered for unknown emails and of the stored email codes: every
   * instance that shares it answers the same stand-in and accepts the others' codes (D-212).
   */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly tokens: SessionTokens,
    signingKey: KeyObject,
    options: ManagedOptions,
  ) {
    const seed = signingKey.export({ format: 'raw-seed' });
    this.fakeSaltKey = deriveKey(seed, 'svckit/managed/unknown-salt/v1');
    this.codes = new EmailCodes(
      db,
      clock,
      deriveKey(seed, 'svckit/managed/email-code/v1'),
      options.mailer,
      options.limits,
    );
  }

  /** GET /managed/salt: the account's salt and parameters, or an indistinguishable stand-in (D-212). */
  async salt(query: unknown): Promise<ManagedSalt> {
    const { email } = guard(saltQuery, query, EXPLAIN);
    const normalised = emailOf(email);
    const row = await managedByEmail(this.db, normalised);
    if (row) return saltAnswer(normalised, row.authKdf);
    const salt = createHmac('sha256', this.fakeSaltKey)
      .update(normalised)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
    return saltAnswer(normalised, { ...DEFAULT_AUTH_KDF, salt });
  }

  /**
   * POST /managed/email-codes: a code to a free email, a notice to a taken one's owner; one answer for both
   * (D-210). Only the caller's own identity may be refused (409): that tells nothing about the email.
   */
  async requestCode(svcId: string, body: unknown, ip: string): Promise<ManagedEmailCodeSent> {
    const email = emailOf(guard(codeBody, body, EXPLAIN).email);
    if (await managedBySvcId(this.db, svcId)) throw identityHasAccount(svcId);
    const expiresAt = await this.codes.request(svcId, email, ip, await emailHeld(this.db, email));
    return { email, expiresAt: expiresAt.toISOString() };
  }

  /** POST /managed/accounts: the identity `svcId` (a two-key session) proves the email and deposits its one sealed share. */
  async create(svcId: string, body: unknown): Promise<ManagedAccount> {
    const input = guard(accountBody, body, EXPLAIN);
    const expected = `guardian-share:${svcId}`;
    if (input.sealedShare.label !== expected) {
      throw new RestError(
        ErrorCode.SHARE_LABEL_MISMATCH,
        `"sealedShare.label" expected "${expected}", got "${input.sealedShare.label}"`,
      );
    }
    checkSealed(input.sealedShare);
    if (base64urlBytes(input.authKdf.salt).length < 16)
      throw new RestError(ErrorCode.INVALID_PARAMETER, '"authKdf.salt" expected at least 16 bytes');
    const email = emailOf(input.email);
    if (await managedBySvcId(this.db, svcId)) throw identityHasAccount(svcId);
    // D-210: a taken email never gets a code, so this refusal reads the same whether or not it is taken.
    if (!(await this.codes.consume(svcId, email, input.emailCode))) {
      throw new RestError(
        ErrorCode.EMAIL_CODE_INVALID,
        '"emailCode" is wrong, expired or used up: ask for a new one (POST /managed/email-codes)',
      );
    }
    const verifierSalt = randomBytes(16);
    const { name: _n, v: _v, ...authKdf } = input.authKdf;
    const row: ManagedRow = {
      svcId,
      email,
      authKdf,
      verifierSalt,
      verifier: await verifierOf(Buffer.from(input.authKey, 'hex'), verifierSalt),
      sealedShare: input.sealedShare as unknown as Record<string, unknown>,
      createdAt: new Date(this.clock.now()),
      emailVerifiedAt: new Date(this.clock.now()),
    };
    // The primary key and the unique email make the insert the arbiter when two deposits race; the caller has
    // just proven the email, so naming it as taken tells nothing to anyone but its owner.
    if (!(await claimManagedAccount(this.db, row))) {
      throw new RestError(
        ErrorCode.MANAGED_ACCOUNT_EXISTS,
        'a managed account already exists for this identity or this email; the service holds at most one share (DELETE /managed/accounts first to replace it)',
      );
    }
    return { svcId, email, createdAt: row.createdAt.toISOString() };
  }

  /** POST /managed/sessions: constant-time comparison, the same work and the same 401 for an unknown email. */
  async signIn(body: unknown): Promise<ManagedSession> {
    const input = guard(sessionBody, body, EXPLAIN);
    const row = await managedByEmail(this.db, emailOf(input.email));
    const candidate = await verifierOf(Buffer.from(input.authKey, 'hex'), row?.verifierSalt ?? this.dummyVerifierSalt);
    const stored = row ? Buffer.from(row.verifier) : Buffer.alloc(32);
    const match = timingSafeEqual(candidate, stored);
    if (!row || !match) throw new RestError(ErrorCode.INVALID_CREDENTIALS, 'email or password not recognised');
    const { token, exp } = await this.tokens.issueManaged(row.svcId);
    return { token, svcId: row.svcId, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** GET /managed/share: the sealed share as deposited, its members in the contract's order (D-212). */
  async share(svcId: string): Promise<ManagedShare> {
    const row = await managedBySvcId(this.db, svcId);
    if (!row) throw new RestError(ErrorCode.MANAGED_ACCOUNT_NOT_FOUND, `svcId ${svcId} has no managed account`);
    return shareAnswer(svcId, row.sealedShare as unknown as SealedShare, row.createdAt);
  }

  /** DELETE /managed/accounts: removes the email, the verifier and the share. */
  async remove(svcId: string): Promise<void> {
    if (!(await deleteManagedAccount(this.db, svcId)))
      throw new RestError(ErrorCode.MANAGED_ACCOUNT_NOT_FOUND, `svcId ${svcId} has no managed account`);
  }
}

const identityHasAccount = (svcId: string) =>
  new RestError(
    ErrorCode.MANAGED_ACCOUNT_EXISTS,
    `svcId ${svcId} already has a managed account; the service holds at most one share (DELETE /managed/accounts first to replace it)`,
  );

/** The keystore's own bounds (D-120): a 16-byte salt at least, a 12-byte nonce, a ciphertext longer than its tag. */
function checkSealed(file: SealedShare): void {
  if (base64urlBytes(file.kdf.salt).length < 16)
    throw new RestError(ErrorCode.NOT_A_SEALED_SHARE, '"sealedShare.kdf.salt" expected at least 16 bytes');
  if (base64urlBytes(file.cipher.nonce).length !== 12)
    throw new RestError(ErrorCode.NOT_A_SEALED_SHARE, '"sealedShare.cipher.nonce" expected 12 bytes');
  if (file.kdf.memoryKiB < 8 * file.kdf.parallelism)
    throw new RestError(ErrorCode.NOT_A_SEALED_SHARE, '"sealedShare.kdf.memoryKiB" expected at least 8 KiB per lane');
  // A share of 16- to 32-byte entropy in its JSON wrapper is well over 64 bytes; shorter is not a sealed share.
  if (base64urlBytes(file.ciphertext).length < 64)
    throw new RestError(
      ErrorCode.NOT_A_SEALED_SHARE,
      '"sealedShare.ciphertext" expected a sealed share (at least 64 bytes with the tag)',
    );
}
