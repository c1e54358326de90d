/**
 * The answers of the managed tier, each built member by member in the contract's order (D-212): a real
 * account's values come from jsonb columns, whose member order is the database's (PostgreSQL sorts jsonb keys
 * by length), and a stand-in's from code; copying either as stored would tell them apart.
 */
import type { ManagedAuthKdf, ManagedSalt, ManagedShare, SealedShare } from '@svckit/sdk/wallet';

/** The Argon2id parameters and salt, in the order of `ManagedAuthKdf`. */
export function kdfAnswer(kdf: Pick<ManagedAuthKdf, 'memoryKiB' | 'passes' | 'parallelism' | 'salt'>): ManagedAuthKdf {
  return {
    name: 'argon2id',
    v: 19,
    memoryKiB: kdf.memoryKiB,
    passes: kdf.passes,
    parallelism: kdf.parallelism,
    salt: kdf.salt,
  };
}

/** GET /managed/salt, in the order of `ManagedSalt`, for an account and a stand-in alike. */
export function saltAnswer(
  email: string,
  kdf: Pick<ManagedAuthKdf, 'memoryKiB' | 'passes' | 'parallelism' | 'salt'>,
): ManagedSalt {
  return { email, authKdf: kdfAnswer(kdf) };
}

/** A stored sealed share, rebuilt in the order of `SealedShare`. */
export function sealedShareAnswer(stored: SealedShare): SealedShare {
  return {
    format: stored.format,
    version: stored.version,
    kdf: kdfAnswer(stored.kdf),
    cipher: { name: stored.cipher.name, nonce: stored.cipher.nonce },
    ciphertext: stored.ciphertext,
    label: stored.label,
  };
}

/** GET /managed/share, in the order of `ManagedShare`. */
export function shareAnswer(svcId: string, stored: SealedShare, createdAt: Date): ManagedShare {
  return { svcId, sealedShare: sealedShareAnswer(stored), createdAt: createdAt.toISOString() };
}
