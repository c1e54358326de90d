// ML-KEM-768 (FIPS 203). OpenSSL (node:crypto) is the default for key generation, encapsulation and
// decapsulation; @noble/post-quantum serves encapsulation with a caller-supplied m (Algorithm 17,
// for known-answer tests) and the expanded decapsulation key.
import { generateKeyPairSync } from 'node:crypto';
import { asUint8Array, assertBytes, assertLength } from './bytes.ts';
import {
  ML_KEM_768_SIZES,
  opensslMlKem768Decapsulate,
  opensslMlKem768Encapsulate,
  opensslMlKem768KeygenFromSeed,
  opensslMlKem768PublicKey,
} from './backends/openssl-ml-kem.ts';
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

  /** A fresh key pair from OpenSSL's random generator. */
  keygen(): MlKem768KeyPair {
    const { publicKey, privateKey } = generateKeyPairSync('ml-kem-768');
    return {
      publicKey: asUint8Array(publicKey.export({ format: 'raw-public' })),
      secretKey: asUint8Array(privateKey.export({ format: 'raw-seed' })),
    };
  },

  /** The key pair of a 64-byte seed d || z (FIPS 203 ML-KEM.KeyGen_internal). */
  keygenFromSeed(seed: Uint8Array): MlKem768KeyPair {
    assertLength('seed', seed, ML_KEM_768_SIZES.seed);
    return opensslMlKem768KeygenFromSeed(seed);
  },

  /** The encapsulation key of a decapsulation key (seed or expanded). */
  publicKeyOf(secretKey: Uint8Array): Uint8Array {
    assertLength('secretKey', secretKey, ML_KEM_768_SIZES.seed, ML_KEM_768_SIZES.secretKey);
    return opensslMlKem768PublicKey(secretKey);
  },

  /** The 2,400-byte FIPS 203 expanded decapsulation key of a seed (or the expanded key itself). */
  expandSecretKey(secretKey: Uint8Array): Uint8Array {
    assertLength('secretKey', secretKey, ML_KEM_768_SIZES.seed, ML_KEM_768_SIZES.secretKey);
    return nobleMlKem768ExpandedSecretKey(secretKey);
  },

  /** FIPS 203 ML-KEM.Encaps with OpenSSL's randomness; CryptoError('bad_key') if ek fails the §7.2 check. */
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
