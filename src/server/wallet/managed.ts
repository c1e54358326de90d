/**
 * The managed-account tier (spec rule 8: "An optional managed-account tier (email and password sign-in) stays
 * non-custodial through 2-of-3 guardian recovery: shares are split on the user's device, and the service holds
 * at most one share"). D-127. The service stores, per identity: the normalised email, the client's Argon2id
 * salt and parameters (public), scrypt(authKey) and the service share sealed under the password (D-120,
 * D-122). The password never arrives; the auth key is a different Argon2id derivation from the sealing key.
 */
import { createHmac, randomBytes, scrypt, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type {
  ManagedAccount,
  ManagedAuthKdf,
  ManagedSalt,
  ManagedSession,
  ManagedShare,
  SealedShare,
} from '../../../generated/wallet/types.gen';
import { zManagedAuthKdf, zManagedAuthKey, zManagedEmail, zSealedShare } from '../../../generated/wallet/zod.gen';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import {
  deleteManagedAccount,
  insertManagedAccount,
  managedByEmail,
  managedBySvcId,
  managedExists,
  type ManagedRow,
} from './managed-store.ts';
import type { SessionTokens } from './tokens.ts';

/** D-127: scrypt parameters of the stored verifier (about 32 MiB, 0.2 s). */
export const VERIFIER_SCRYPT = Object.freeze({ N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
/** D-120's default Argon2id parameters, answered for an email with no account. */
export const DEFAULT_AUTH_KDF = Object.freeze({ memoryKiB: 64 * 1024, passes: 3, parallelism: 4 });

const EXPLAIN = {
  email: 'an email address (local@domain, at most 254 characters)',
  authKey: '64 lower-case hex characters (a 32-byte Argon2id output)',
  'authKdf.salt': 'base64url of a 16- to 64-byte salt',
  'sealedShare.label': 'guardian-share: and a 16-hex svcId',
  'sealedShare.ciphertext': 'base64url of the AES-256-GCM ciphertext and tag',
};

const kdf = zManagedAuthKdf.strict();
const sealed = zSealedShare.extend({ kdf, cipher: zSealedShare.shape.cipher.strict() }).strict();
const accountBody = z
  .object({ email: zManagedEmail, authKdf: kdf, authKey: zManagedAuthKey, sealedShare: sealed })
  .strict();
const sessionBody = z.object({ email: zManagedEmail, authKey: zManagedAuthKey }).strict();
const saltQuery = z.object({ email: zManagedEmail }).strict();

/** D-127: emails are compared trimmed, NFKC-normalised and in lower case. */
export const normaliseEmail = (email: string) => email.trim().normalize('NFKC').toLowerCase();

const base64urlBytes = (text: string) => Buffer.from(text, 'base64url');

function verifierOf(authKey: Uint8Array, salt: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(authKey, salt, 32, VERIFIER_SCRYPT, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const kdfView = (row: ManagedRow['authKdf']): ManagedAuthKdf => ({ name: 'argon2id', v: 19, ...row });

/** Accounts, sign-in and the sealed share of the managed tier. */
export class ManagedService {
  private readonly fakeSaltKey: Buffer;
  private readonly dummyVerifierSalt = randomBytes(16);

  /** `signingKey` keys the HMAC of the salts answered for unknown emails (stable across restarts with persisted keys). */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly tokens: SessionTokens,
    signingKey: KeyObject,
  ) {
    this.fakeSaltKey = createHmac('sha256', 'svckit/managed/unknown-salt/v1')
      .update(signingKey.export({ format: 'raw-seed' }))
      .digest();
  }

  /** GET /managed/salt: the account's salt and parameters, or an indistinguishable stand-in. */
  async salt(query: unknown): Promise<ManagedSalt> {
    const { email } = guard(saltQuery, query, EXPLAIN);
    const normalised = normaliseEmail(email);
    const row = await managedByEmail(this.db, normalised);
    if (row) return { email: normalised, authKdf: kdfView(row.authKdf) };
    const salt = createHmac('sha256', this.fakeSaltKey)
      .update(normalised)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
    return { email: normalised, authKdf: { name: 'argon2id', v: 19, ...DEFAULT_AUTH_KDF, salt } };
  }

  /** POST /managed/accounts: the identity `svcId` (a two-key session) deposits its one sealed share. */
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
    const email = normaliseEmail(input.email);
    const existsMessage =
      'a managed account already exists for this identity or this email; the service holds at most one share (DELETE /managed/accounts first to replace it)';
    if (await managedExists(this.db, svcId, email))
      throw new RestError(ErrorCode.MANAGED_ACCOUNT_EXISTS, existsMessage);
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
    };
    // The primary key and the unique email make the insert the arbiter when two deposits race.
    if (!(await insertManagedAccount(this.db, row)))
      throw new RestError(ErrorCode.MANAGED_ACCOUNT_EXISTS, existsMessage);
    return { svcId, email, createdAt: row.createdAt.toISOString() };
  }

  /** POST /managed/sessions: constant-time comparison, the same work and the same 401 for an unknown email. */
  async signIn(body: unknown): Promise<ManagedSession> {
    const input = guard(sessionBody, body, EXPLAIN);
    const row = await managedByEmail(this.db, normaliseEmail(input.email));
    const candidate = await verifierOf(Buffer.from(input.authKey, 'hex'), row?.verifierSalt ?? this.dummyVerifierSalt);
    const stored = row ? Buffer.from(row.verifier) : Buffer.alloc(32);
    const match = timingSafeEqual(candidate, stored);
    if (!row || !match) throw new RestError(ErrorCode.INVALID_CREDENTIALS, 'email or password not recognised');
    const { token, exp } = await this.tokens.issueManaged(row.svcId);
    return { token, svcId: row.svcId, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** GET /managed/share: the sealed share, exactly as deposited. */
  async share(svcId: string): Promise<ManagedShare> {
    const row = await managedBySvcId(this.db, svcId);
    if (!row) throw new RestError(ErrorCode.MANAGED_ACCOUNT_NOT_FOUND, `svcId ${svcId} has no managed account`);
    return { svcId, sealedShare: row.sealedShare as unknown as SealedShare, createdAt: row.createdAt.toISOString() };
  }

  /** DELETE /managed/accounts: removes the email, the verifier and the share. */
  async remove(svcId: string): Promise<void> {
    if (!(await deleteManagedAccount(this.db, svcId)))
      throw new RestError(ErrorCode.MANAGED_ACCOUNT_NOT_FOUND, `svcId ${svcId} has no managed account`);
  }
}

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
