// ML-KEM-768 through @noble/post-quantum, for what OpenSSL (node:crypto) does not expose: encapsulation
// with a caller-supplied m (FIPS 203 Algorithm 17, used by ACVP) and the expanded decapsulation key.
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { CryptoError } from '../errors.ts';
import { ML_KEM_768_SIZES } from './parameter-sets.ts';

/** The FIPS 203 expanded decapsulation key (2,400 bytes) of a seed d || z, or the expanded key itself. */
export function nobleMlKem768ExpandedSecretKey(secretKey: Uint8Array): Uint8Array {
  if (secretKey.length === ML_KEM_768_SIZES.secretKey) return secretKey;
  if (secretKey.length === ML_KEM_768_SIZES.seed) return ml_kem768.keygen(secretKey).secretKey;
  throw new CryptoError(
    'BAD_LENGTH',
    `ML-KEM-768 decapsulation key expected 64 (seed) or 2400 (expanded) bytes, got ${secretKey.length}`,
  );
}

/** FIPS 203 ML-KEM.KeyGen_internal(d, z) with the expanded decapsulation key. */
export function nobleMlKem768KeygenFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (seed.length !== ML_KEM_768_SIZES.seed)
    throw new CryptoError('BAD_LENGTH', `ML-KEM-768 seed expected 64 bytes, got ${seed.length}`);
  return ml_kem768.keygen(seed);
}

/** The encapsulation key of a decapsulation key (seed or expanded). */
export function nobleMlKem768PublicKey(secretKey: Uint8Array): Uint8Array {
  return ml_kem768.getPublicKey(nobleMlKem768ExpandedSecretKey(secretKey));
}

/** FIPS 203 ML-KEM.Encaps; with `m`, Encaps_internal (Algorithm 17) on that 32-byte randomness. */
export function nobleMlKem768Encapsulate(
  publicKey: Uint8Array,
  m?: Uint8Array,
): { ciphertext: Uint8Array; sharedSecret: Uint8Array } {
  if (m !== undefined && m.length !== 32) throw new CryptoError('BAD_LENGTH', `m expected 32 bytes, got ${m.length}`);
  try {
    const { cipherText, sharedSecret } = ml_kem768.encapsulate(publicKey, m);
    return { ciphertext: cipherText, sharedSecret };
  } catch (error) {
    // FIPS 203 §7.2: a wrong length or a coefficient not below q fails the encapsulation key check
    throw new CryptoError('BAD_KEY', `@noble/post-quantum refused the encapsulation key: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** FIPS 203 ML-KEM.Decaps; the §7.3 hash check on the expanded key is applied, implicit rejection otherwise. */
export function nobleMlKem768Decapsulate(secretKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  if (ciphertext.length !== ML_KEM_768_SIZES.ciphertext) {
    throw new CryptoError('BAD_LENGTH', `ML-KEM-768 ciphertext expected 1088 bytes, got ${ciphertext.length}`);
  }
  const expanded = nobleMlKem768ExpandedSecretKey(secretKey);
  try {
    return ml_kem768.decapsulate(ciphertext, expanded);
  } catch (error) {
    throw new CryptoError('BAD_KEY', `@noble/post-quantum refused the decapsulation key: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
