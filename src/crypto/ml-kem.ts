// ML-KEM-768 (FIPS 203). OpenSSL (node:crypto) is the default for key generation, encapsulation and
// decapsulation; @noble/post-quantum serves encapsulation with a caller-supplied m (Algorithm 17,
// for known-answer tests) and the expanded decapsulation key.
import { assertBytes, assertLength } from './bytes.ts';
import { keyPairFunctions } from './key-pairs.ts';
import { opensslMlKem768Decapsulate, opensslMlKem768Encapsulate } from './backends/openssl-ml-kem.ts';
import { ML_KEM_768, ML_KEM_768_SIZES } from './backends/parameter-sets.ts';
import { nobleMlKem768Encapsulate, nobleMlKem768ExpandedSecretKey } from './backends/noble-ml-kem.ts';

/** An ML-KEM-768 key pair: the 1,184-byte encapsulation key and the 64-byte seed d || z as decapsulation key. */
export interface MlKem768KeyPair {
  /** FIPS 203 encapsulation key ek, 1,184 bytes. */
  publicKey: Uint8Array;
  /** The 64-byte seed d || z (FIPS 203 Algorithm 16 inputs); every function also takes the 2,400-byte expanded dk. */
  secretKey: Uint8Array;
}

/** The result of an encapsulation. */
export interface MlKem768Encapsulation {
  /** FIPS 203 ciphertext c, 1,088 bytes. */
  ciphertext: Uint8Array;
  /** The 32-byte shared secret K. */
  sharedSecret: Uint8Array;
}

/** ML-KEM-768: key generation, encapsulation and decapsulation (FIPS 203, parameter set ML-KEM-768, category 3). */
export const mlKem768 = Object.freeze({
  /** FIPS 203 Table 3 sizes in bytes. */
  sizes: ML_KEM_768_SIZES,

  ...keyPairFunctions(ML_KEM_768, nobleMlKem768ExpandedSecretKey),

  /** FIPS 203 ML-KEM.Encaps with OpenSSL's randomness; CryptoError('BAD_KEY') if ek fails the §7.2 check. */
  encapsulate(publicKey: Uint8Array): MlKem768Encapsulation {
    assertLength('publicKey', publicKey, ML_KEM_768_SIZES.publicKey);
    return opensslMlKem768Encapsulate(publicKey);
  },

  /** FIPS 203 ML-KEM.Encaps_internal on a caller-supplied 32-byte m, via @noble/post-quantum (for known answers). */
  encapsulateDeterministic(publicKey: Uint8Array, m: Uint8Array): MlKem768Encapsulation {
    assertLength('publicKey', publicKey, ML_KEM_768_SIZES.publicKey);
    assertLength('m', m, 32);
    return nobleMlKem768Encapsulate(publicKey, m);
  },

  /** FIPS 203 ML-KEM.Decaps (OpenSSL); a tampered ciphertext yields the implicit-rejection key, not an error. */
  decapsulate(secretKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
    assertLength('secretKey', secretKey, ML_KEM_768_SIZES.seed, ML_KEM_768_SIZES.secretKey);
    assertBytes('ciphertext', ciphertext);
    return opensslMlKem768Decapsulate(secretKey, ciphertext);
  },
});
