// The key functions ML-DSA-65 (FIPS 204) and ML-KEM-768 (FIPS 203) share in the façade: key generation
// through OpenSSL, the public key of a secret key, and the expanded secret key through @noble/post-quantum.
import { assertLength } from './bytes.ts';
import { derivePublicKey, generateKeyPair, type KeyPair, keyPairFromSeed } from './backends/openssl-keys.ts';
import type { ParameterSet } from './backends/parameter-sets.ts';

/** The key functions of one parameter set; `expand` gives the expanded form of a seed (the noble backend's). */
export function keyPairFunctions(set: ParameterSet, expand: (secretKey: Uint8Array) => Uint8Array) {
  const { sizes } = set;
  return {
    /** A fresh key pair from OpenSSL's random generator. */
    keygen(): KeyPair {
      return generateKeyPair(set);
    },

    /** The key pair of a seed (ML-DSA.KeyGen_internal on ξ, ML-KEM.KeyGen_internal on d || z). */
    keygenFromSeed(seed: Uint8Array): KeyPair {
      assertLength('seed', seed, sizes.seed);
      return keyPairFromSeed(set, seed);
    },

    /** The public (encapsulation) key of a secret (decapsulation) key, seed or expanded. */
    publicKeyOf(secretKey: Uint8Array): Uint8Array {
      assertLength('secretKey', secretKey, sizes.seed, sizes.secretKey);
      return derivePublicKey(set, secretKey);
    },

    /** The expanded secret key (FIPS 204 skEncode, FIPS 203 dk) of a seed, or the expanded key itself. */
    expandSecretKey(secretKey: Uint8Array): Uint8Array {
      assertLength('secretKey', secretKey, sizes.seed, sizes.secretKey);
      return expand(secretKey);
    },
  };
}
