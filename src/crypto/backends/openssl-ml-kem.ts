// ML-KEM-768 through OpenSSL 3.5 (node:crypto): FIPS 203 KeyGen from (d, z), Encaps with OpenSSL's own
// randomness, Decaps. OpenSSL applies the FIPS 203 §7.2 encapsulation-key check on import and the
// §7.3 decapsulation-key hash check when it imports an expanded key. node:crypto takes no
// caller-supplied m (Algorithm 17's randomness); noble-ml-kem.ts offers that for the ACVP runner.
// A namespace import: Node 20 and 22 have no encapsulate/decapsulate, and the SDK still loads there (D-229).
import * as nodeCrypto from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { asUint8Array } from '../bytes.ts';
import { CryptoError } from '../errors.ts';
import {
  derivePublicKey,
  importPublicKey,
  importSecretKey,
  type KeyPair,
  keyPairFromSeed,
  seedMatchesExpanded,
} from './openssl-keys.ts';
import { ML_KEM_768, ML_KEM_768_SIZES } from './parameter-sets.ts';

/** Imports a 64-byte seed (d || z) or a 2,400-byte FIPS 203 expanded decapsulation key. */
export function importMlKem768SecretKey(secretKey: Uint8Array): KeyObject {
  return importSecretKey(ML_KEM_768, secretKey);
}

/** Imports a 1,184-byte encapsulation key; OpenSSL applies the FIPS 203 §7.2 modulus check. */
export function importMlKem768PublicKey(publicKey: Uint8Array): KeyObject {
  return importPublicKey(ML_KEM_768, publicKey);
}

/** FIPS 203 ML-KEM.KeyGen_internal(d, z): the encapsulation key and the seed kept as secret key. */
export function opensslMlKem768KeygenFromSeed(seed: Uint8Array): KeyPair {
  return keyPairFromSeed(ML_KEM_768, seed);
}

/** The encapsulation key of a decapsulation key (seed or expanded), as OpenSSL derives it. */
export function opensslMlKem768PublicKey(secretKey: Uint8Array): Uint8Array {
  return derivePublicKey(ML_KEM_768, secretKey);
}

/** True when OpenSSL's expansion of the seed d || z equals the given expanded key (PKCS#8 "both" import). */
export function opensslMlKem768SeedMatchesExpanded(seed: Uint8Array, expandedKey: Uint8Array): boolean {
  return seedMatchesExpanded(ML_KEM_768, seed, expandedKey);
}

/** FIPS 203 ML-KEM.Encaps (Algorithm 20) with OpenSSL's randomness. */
export function opensslMlKem768Encapsulate(publicKey: Uint8Array | KeyObject): {
  ciphertext: Uint8Array;
  sharedSecret: Uint8Array;
} {
  const key = publicKey instanceof Uint8Array ? importMlKem768PublicKey(publicKey) : publicKey;
  const { sharedKey, ciphertext } = nodeCrypto.encapsulate(key);
  return { ciphertext: asUint8Array(ciphertext), sharedSecret: asUint8Array(sharedKey) };
}

/** FIPS 203 ML-KEM.Decaps (Algorithm 21); implicit rejection yields a pseudo-random key, never an error. */
export function opensslMlKem768Decapsulate(secretKey: Uint8Array | KeyObject, ciphertext: Uint8Array): Uint8Array {
  if (ciphertext.length !== ML_KEM_768_SIZES.ciphertext) {
    throw new CryptoError('BAD_LENGTH', `ML-KEM-768 ciphertext expected 1088 bytes, got ${ciphertext.length}`);
  }
  const key = secretKey instanceof Uint8Array ? importMlKem768SecretKey(secretKey) : secretKey;
  try {
    return asUint8Array(nodeCrypto.decapsulate(key, ciphertext));
  } catch (error) {
    throw new CryptoError('BAD_INPUT', `OpenSSL could not decapsulate: ${(error as Error).message}`, { cause: error });
  }
}
