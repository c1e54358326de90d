/**
 * The managed-account tier, client side (spec rule 8: "An optional managed-account tier (email and password
 * sign-in) stays non-custodial through 2-of-3 guardian recovery: shares are split on the user's device, and
 * the service holds at most one share"). D-127, D-122.
 *
 * Which secret goes where:
 * - the device and guardian shares stay with the caller (this device's keystore, the guardian);
 * - the service share is sealed on the device under the password (D-120 keystore: its own random salt) and
 *   uploaded sealed;
 * - the server gets `authKey = Argon2id(password, authSalt, associated data "svckit/managed/auth/v1")`, a
 *   different derivation that does not open the share, and keeps only a scrypt hash of it;
 * - the password itself never leaves the device.
 *
 * Opening an account takes two steps (D-210): {@link requestSignUpCode} has the service email a one-time code
 * to the address, and {@link signUp} sends that code with the sealed share. The client derives only with
 * Argon2id parameters inside {@link MANAGED_KDF_BOUNDS} (D-211), whatever the service hands it.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '../../../generated/wallet/client/index.ts';
import * as sdk from '../../../generated/wallet/sdk.gen.ts';
import type { ManagedAccount, ManagedAuthKdf, ManagedEmailCodeSent } from '../../../generated/wallet/types.gen.ts';
import { toHex } from '../../crypto/index.ts';
import { b64url, DEFAULT_ARGON2ID, passwordBytes, type Argon2idParams } from './keystore-format.ts';
import { argon2idKey } from './keystore.ts';
import {
  openServiceShare,
  recoverFromShares,
  RecoveryError,
  sealServiceShare,
  splitForGuardians,
  type GuardianShare,
} from './recovery.ts';
import { authorizedClient, type Session } from './session.ts';
import { Wallet } from './wallet.ts';
import { SvcError } from '../../errors.ts';

/** D-127: the Argon2id associated data that separates the auth key from the share-sealing key. */
export const MANAGED_AUTH_CONTEXT = 'svckit/managed/auth/v1';

/** D-211: the Argon2id parameters the managed tier accepts and a client derives with (wallet.openapi.yaml `ManagedAuthKdf`). */
export const MANAGED_KDF_BOUNDS = Object.freeze({
  minMemoryKiB: 8 * 1024,
  maxMemoryKiB: 256 * 1024,
  maxPasses: 8,
  maxParallelism: 8,
});

/** D-127: the email as the service compares it (trimmed, NFKC, lower case). */
export const normaliseEmail = (email: string) => email.trim().normalize('NFKC').toLowerCase();

/** Thrown when a managed-tier call fails; `status` is the HTTP status when the server answered. */
export class ManagedError extends SvcError {
  override name = 'ManagedError';
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** `code` is the server's error code when it answered one, else `MANAGED_FAILED`. */
  constructor(message: string, status?: number, code?: string) {
    super(code ?? 'MANAGED_FAILED', message);
    this.status = status;
  }
}

/** Options of {@link signUp}. */
export interface SignUpOptions {
  /** The 8-digit code {@link requestSignUpCode} had the service email to the address (D-210). */
  emailCode: string;
  /** A two-key session of the wallet (default: `wallet.login(client)`). */
  session?: Pick<Session, 'token'>;
  /** The BIP-39 passphrase, when the wallet has one (it labels the shares' svcId). */
  passphrase?: string;
  /** Argon2id parameters of the auth key; default D-120's. */
  authParams?: Argon2idParams;
  /** Argon2id parameters of the sealed share; default D-120's. */
  sealParams?: Argon2idParams;
}

/** What the device keeps after {@link signUp}: the account and the two shares the service never sees. */
export interface SignUpResult {
  account: ManagedAccount;
  deviceShare: GuardianShare;
  guardianShare: GuardianShare;
}

/** Throws a ManagedError (`KDF_OUT_OF_BOUNDS`) for Argon2id parameters outside {@link MANAGED_KDF_BOUNDS} (D-211). */
export function checkManagedKdf(params: Argon2idParams): void {
  const b = MANAGED_KDF_BOUNDS;
  const within = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  if (
    !within(params.memoryKiB, b.minMemoryKiB, b.maxMemoryKiB) ||
    !within(params.passes, 1, b.maxPasses) ||
    !within(params.parallelism, 1, b.maxParallelism)
  ) {
    throw new ManagedError(
      `Argon2id parameters expected memory ${b.minMemoryKiB} to ${b.maxMemoryKiB} KiB, 1 to ${b.maxPasses} passes and 1 to ${b.maxParallelism} lanes, got ${params.memoryKiB} KiB, ${params.passes} passes, ${params.parallelism} lanes`,
      undefined,
      'KDF_OUT_OF_BOUNDS',
    );
  }
}

/** The auth key the server sees (hex): Argon2id over the password with the account's salt and parameters (bounded, D-211). */
export async function managedAuthKey(
  password: string,
  authKdf: Pick<ManagedAuthKdf, 'memoryKiB' | 'passes' | 'parallelism' | 'salt'>,
): Promise<string> {
  checkManagedKdf(authKdf);
  const params = { memoryKiB: authKdf.memoryKiB, passes: authKdf.passes, parallelism: authKdf.parallelism };
  const key = await argon2idKey(passwordBytes(password), b64url.decode(authKdf.salt), params, {
    associatedData: new TextEncoder().encode(MANAGED_AUTH_CONTEXT),
  });
  try {
    return toHex(key);
  } finally {
    key.fill(0);
  }
}

/**
 * POST /managed/email-codes: asks the service to email a one-time code to `email` (D-210). The answer is the
 * same whether or not the email is free; only its mailbox learns which (a code, or a notice that it is taken).
 */
export async function requestSignUpCode(
  client: Client,
  email: string,
  session: Pick<Session, 'token'>,
): Promise<ManagedEmailCodeSent> {
  const result = await patient(() =>
    sdk.walletRequestManagedEmailCode({
      client: authorizedClient(client, session),
      body: { email: normaliseEmail(email) },
    }),
  );
  if (!result.data) throw failure('asking for an email code', result);
  return result.data;
}

/**
 * Splits the wallet 2-of-3 on the device and opens a managed account holding only the sealed service share;
 * `options.emailCode` is the code {@link requestSignUpCode} had sent to the email.
 */
export async function signUp(
  client: Client,
  email: string,
  password: string,
  wallet: Wallet,
  options: SignUpOptions,
): Promise<SignUpResult> {
  const shares = await splitForGuardians(wallet.revealMnemonic(), options.passphrase ?? '');
  if (shares.service.svcId !== wallet.svcId)
    throw new ManagedError(
      `the shares name svcId ${shares.service.svcId}, the wallet is ${wallet.svcId}: pass the wallet's passphrase`,
    );
  const params = options.authParams ?? DEFAULT_ARGON2ID;
  checkManagedKdf(params);
  if (options.sealParams) checkManagedKdf(options.sealParams);
  const authKdf: ManagedAuthKdf = {
    name: 'argon2id',
    v: 19,
    ...params,
    salt: b64url.encode(new Uint8Array(randomBytes(16))),
  };
  const [authKey, sealedShare] = await Promise.all([
    managedAuthKey(password, authKdf),
    sealServiceShare(shares.service, password, options.sealParams ? { params: options.sealParams } : {}),
  ]);
  const session = options.session ?? (await wallet.login(client));
  const result = await patient(() =>
    sdk.walletCreateManagedAccount({
      client: authorizedClient(client, session),
      body: {
        email: normaliseEmail(email),
        emailCode: options.emailCode,
        authKdf,
        authKey,
        sealedShare: sealedShare as never,
      },
    }),
  );
  if (!result.data) throw failure('opening the managed account', result);
  return { account: result.data, deviceShare: shares.device, guardianShare: shares.guardian };
}

/** Options of {@link recover}. */
export interface RecoverOptions {
  /** The BIP-39 passphrase, when the wallet has one. */
  passphrase?: string;
}

/** Signs in with email and password, downloads and opens the sealed share, and rebuilds the wallet with the guardian's share. */
export async function recover(
  client: Client,
  email: string,
  password: string,
  guardianShare: GuardianShare,
  options: RecoverOptions = {},
): Promise<Wallet> {
  const token = await signIn(client, email, password);
  const download = await patient(() => sdk.walletGetManagedShare({ client: authorizedClient(client, token) }));
  if (!download.data) throw failure('downloading the sealed share', download);
  const svcId = download.data.svcId;
  const serviceShare = await openServiceShare(download.data.sealedShare as never, password);
  if (serviceShare.svcId !== svcId || guardianShare.svcId !== svcId) {
    throw new RecoveryError(
      `the shares name svcIds ${serviceShare.svcId} and ${guardianShare.svcId}, the account is ${svcId}`,
    );
  }
  const mnemonic = await recoverFromShares([guardianShare, serviceShare], options.passphrase ?? '');
  const wallet = Wallet.fromMnemonic(mnemonic, options.passphrase ? { passphrase: options.passphrase } : {});
  if (wallet.svcId !== svcId)
    throw new RecoveryError(`the recovered wallet is svcId ${wallet.svcId}, the account is ${svcId}`);
  return wallet;
}

/** GET /managed/salt, then POST /managed/sessions with the derived auth key: a managed token. */
export async function signIn(
  client: Client,
  address: string,
  password: string,
): Promise<{ token: string; svcId: string; expiresAt: string }> {
  const email = normaliseEmail(address);
  const salt = await patient(() => sdk.walletGetManagedSalt({ client, query: { email } }));
  if (!salt.data) throw failure('reading the account salt', salt);
  const authKey = await managedAuthKey(password, salt.data.authKdf);
  const session = await patient(() => sdk.walletCreateManagedSession({ client, body: { email, authKey } }));
  if (!session.data) throw failure('signing in', session);
  return session.data;
}

/** DELETE /managed/accounts with a session or managed token: the service forgets the share. */
export async function closeAccount(client: Client, token: Pick<Session, 'token'>): Promise<void> {
  const result = await patient(() => sdk.walletDeleteManagedAccount({ client: authorizedClient(client, token) }));
  if (result.response?.status !== 204) throw failure('closing the managed account', result);
}

async function patient<T extends { response?: Response }>(call: () => Promise<T>, retries = 3): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const result = await call();
    if (result.response?.status !== 429 || attempt >= retries) return result;
    const wait = Math.min(5, Math.max(1, Number(result.response.headers.get('retry-after')) || 1));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

function failure(step: string, result: { error?: unknown; response?: Response }): ManagedError {
  const body = (result.error ?? {}) as { error?: string; code?: string };
  return new ManagedError(
    `${step} failed: ${result.response?.status ?? 'no response'} ${body.error ?? ''}`.trim(),
    result.response?.status,
    body.code,
  );
}
