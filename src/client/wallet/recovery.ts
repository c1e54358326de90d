/**
 * Managed-account tier, 2-of-3 guardian recovery (specs/wallet.openapi.yaml rule 8: "the optional
 * managed-account tier stays non-custodial through 2-of-3 guardian recovery (shares split on the device; the
 * service holds at most one share)"). D-122.
 *
 * - The secret split is the BIP-39 entropy (16 to 32 uniformly random bytes), on the device, with the audited
 *   `shamir-secret-sharing` library (GF(2^8), threshold 2 of 3). A BIP-39 passphrase is not part of it.
 * - Three holders: `device` (kept in this device's keystore), `guardian` (a person or another device the
 *   user trusts), `service` (the managed-account tier). Only the `service` share is ever given to the service,
 *   and before it leaves the device it is sealed in a keystore file under the account password (Argon2id +
 *   AES-256-GCM), so the service holds one share it cannot even read.
 * - Shamir shares carry no integrity: recovery re-derives the identity and refuses a result whose svcId is
 *   not the one the shares name.
 */
import { combine, split } from 'shamir-secret-sharing';
import { deriveIdentity } from './identity.ts';
import { mnemonicEntropy, mnemonicFromEntropy, mnemonicToSeed } from './keys.ts';
import { b64url, type KeystoreFile } from './keystore-format.ts';
import { openKeystore, sealKeystore, type SealOptions } from './keystore.ts';
import { SvcError } from '../../errors.ts';

/** Who holds a share. */
export type ShareHolder = 'device' | 'guardian' | 'service';

/** One guardian share, serialisable as JSON. */
export interface GuardianShare {
  v: 1;
  /** The identity the share belongs to (checked after recovery). */
  svcId: string;
  holder: ShareHolder;
  threshold: 2;
  total: 3;
  /** base64url of the Shamir share (secret length + 1 bytes). */
  share: string;
}

/** The three shares of one split, by holder. */
export type GuardianShares = Record<ShareHolder, GuardianShare>;

/** Thrown when recovery is impossible or yields the wrong identity. */
export class RecoveryError extends SvcError<'RECOVERY_FAILED'> {
  override name = 'RecoveryError';
  /** Builds the error; its code is always `RECOVERY_FAILED`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('RECOVERY_FAILED', message, options);
  }
}

/** Splits the mnemonic's entropy 2-of-3 on the device; the svcId (with the BIP-39 passphrase) labels the shares. */
export async function splitForGuardians(mnemonic: string, passphrase = ''): Promise<GuardianShares> {
  const entropy = mnemonicEntropy(mnemonic);
  const { svcId } = deriveIdentity(mnemonicToSeed(mnemonic, passphrase));
  const parts = await split(entropy, 3, 2);
  entropy.fill(0);
  const holders: ShareHolder[] = ['device', 'guardian', 'service'];
  const entries = holders.map(
    (holder, i) =>
      [
        holder,
        { v: 1, svcId, holder, threshold: 2, total: 3, share: b64url.encode(parts[i]!) } satisfies GuardianShare,
      ] as const,
  );
  return Object.fromEntries(entries) as GuardianShares;
}

/**
 * Recovers the mnemonic from any two distinct shares of one split; RecoveryError with fewer than two, shares
 * of different identities, or a result that does not derive the svcId the shares name.
 */
export async function recoverFromShares(shares: GuardianShare[], passphrase = ''): Promise<string> {
  const distinct = [...new Map(shares.map((s) => [s.share, s])).values()];
  if (distinct.length < 2) throw new RecoveryError(`recovery needs 2 distinct shares of the 3, got ${distinct.length}`);
  const svcIds = new Set(distinct.map((s) => s.svcId));
  if (svcIds.size !== 1)
    throw new RecoveryError(`the shares belong to different identities: ${[...svcIds].join(', ')}`);
  const [svcId] = svcIds;
  let entropy: Uint8Array;
  try {
    entropy = await combine(distinct.slice(0, 2).map((s) => b64url.decode(s.share)));
  } catch (error) {
    throw new RecoveryError(`the shares do not combine: ${(error as Error).message}`);
  }
  let mnemonic: string;
  try {
    mnemonic = mnemonicFromEntropy(entropy);
  } catch {
    throw new RecoveryError('the shares combine to no valid BIP-39 entropy: a share is corrupt or from another split');
  } finally {
    entropy.fill(0);
  }
  const recovered = deriveIdentity(mnemonicToSeed(mnemonic, passphrase)).svcId;
  if (recovered !== svcId)
    throw new RecoveryError(
      `the recovered seed gives svcId ${recovered}, not ${svcId}: a share is corrupt, from another split, or the passphrase differs`,
    );
  return mnemonic;
}

/** Seals the `service` share under the managed-account password before upload (the only share the service gets). */
export async function sealServiceShare(
  share: GuardianShare,
  accountPassword: string,
  options: SealOptions = {},
): Promise<KeystoreFile> {
  if (share.holder !== 'service')
    throw new RecoveryError(`only the "service" share may be given to the service, got the "${share.holder}" share`);
  return sealKeystore(accountPassword, new TextEncoder().encode(JSON.stringify(share)), {
    ...options,
    label: `guardian-share:${share.svcId}`,
  });
}

/** Opens a sealed service share with the managed-account password. */
export async function openServiceShare(file: KeystoreFile | string, accountPassword: string): Promise<GuardianShare> {
  const share = JSON.parse(new TextDecoder().decode(await openKeystore(accountPassword, file))) as GuardianShare;
  if (share.holder !== 'service' || share.v !== 1)
    throw new RecoveryError('the sealed file does not hold a service share');
  return share;
}
