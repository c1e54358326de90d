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
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '../../../generated/wallet/client/index.ts';
import * as sdk from '../../../generated/wallet/sdk.gen.ts';
import type { ManagedAccount, ManagedAuthKdf } from '../../../generated/wallet/types.gen.ts';
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

/** The auth key the server sees (hex): Argon2id over the password with the account's salt and parameters. */
export async function managedAuthKey(
  password: string,
  authKdf: Pick<ManagedAuthKdf, 'memoryKiB' | 'passes' | 'parallelism' | 'salt'>,
): Promise<string> {
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

/** Splits the wallet 2-of-3 on the device and opens a managed account holding only the sealed service share. */
export async function signUp(
  client: Client,
  email: string,
  password: string,
  wallet: Wallet,
  options: SignUpOptions = {},
): Promise<SignUpResult> {
  const shares = await splitForGuardians(wallet.revealMnemonic(), options.passphrase ?? '');
  if (shares.service.svcId !== wallet.svcId)
    throw new ManagedError(
      `the shares name svcId ${shares.service.svcId}, the wallet is ${wallet.svcId}: pass the wallet's passphrase`,
    );
  const params = options.authParams ?? DEFAULT_ARGON2ID;
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
      body: { email: normaliseEmail(email), authKdf, authKey, sealedShare: sealedShare as never },
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
