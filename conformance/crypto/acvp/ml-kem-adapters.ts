// What each implementation offers for ML-KEM-768, as the ACVP and Wycheproof runners see it.
import {
  importMlKem768PublicKey,
  importMlKem768SecretKey,
  opensslMlKem768Decapsulate,
  opensslMlKem768KeygenFromSeed,
  opensslMlKem768SeedMatchesExpanded,
} from '@svckit/sdk/crypto/backends';
import {
  nobleMlKem768Decapsulate,
  nobleMlKem768Encapsulate,
  nobleMlKem768KeygenFromSeed,
} from '@svckit/sdk/crypto/backends';
import { CryptoError } from '@svckit/sdk/crypto';
import { NotOffered, type ImplementationId } from '../implementations.ts';

/** The ML-KEM-768 operations ACVP and Wycheproof exercise. */
export interface MlKemAdapter {
  /** KeyGen_internal(d, z) on seed = d || z: ek, and dk or a way to compare one. */
  keyGen(seed: Uint8Array): { ek: Uint8Array; dk?: Uint8Array; dkMatches?: (dk: Uint8Array) => boolean };
  /** Encaps_internal(ek, m). */
  encapsulate(ek: Uint8Array, m: Uint8Array): { c: Uint8Array; k: Uint8Array };
  /** Decaps with a seed or an expanded dk. */
  decapsulate(dk: Uint8Array, c: Uint8Array): Uint8Array;
  /** FIPS 203 §7.2 encapsulation key check (length and modulus): true when ek passes. */
  encapsulationKeyCheck(ek: Uint8Array): boolean;
  /** FIPS 203 §7.3 decapsulation key check (length and H(ek) hash): true when dk passes. */
  decapsulationKeyCheck(dk: Uint8Array): boolean;
}

const openssl: MlKemAdapter = {
  keyGen(seed) {
    const { publicKey } = opensslMlKem768KeygenFromSeed(seed);
    return { ek: publicKey, dkMatches: (dk) => opensslMlKem768SeedMatchesExpanded(seed, dk) };
  },
  encapsulate() {
    throw new NotOffered(
      'encapsulation with a caller-supplied m (Encaps_internal) is not offered by OpenSSL through node:crypto',
    );
  },
  decapsulate: (dk, c) => opensslMlKem768Decapsulate(dk, c),
  // OpenSSL applies the §7.2 check when it imports an encapsulation key and the §7.3 check when it
  // imports an expanded decapsulation key, so import success is the check's answer.
  encapsulationKeyCheck: (ek) => rejectsAsFalse(() => importMlKem768PublicKey(ek)),
  decapsulationKeyCheck: (dk) => dk.length === 2400 && rejectsAsFalse(() => importMlKem768SecretKey(dk)),
};

const noble: MlKemAdapter = {
  keyGen(seed) {
    const { publicKey, secretKey } = nobleMlKem768KeygenFromSeed(seed);
    return { ek: publicKey, dk: secretKey };
  },
  encapsulate(ek, m) {
    const { ciphertext, sharedSecret } = nobleMlKem768Encapsulate(ek, m);
    return { c: ciphertext, k: sharedSecret };
  },
  decapsulate: (dk, c) => nobleMlKem768Decapsulate(dk, c),
  // noble applies §7.2 inside encapsulate() and §7.3 inside decapsulate(), throwing on failure.
  encapsulationKeyCheck: (ek) => rejectsAsFalse(() => nobleMlKem768Encapsulate(ek)),
  decapsulationKeyCheck: (dk) =>
    dk.length === 2400 && rejectsAsFalse(() => nobleMlKem768Decapsulate(dk, new Uint8Array(1088))),
};

/** The adapter of an implementation. */
export function mlKemAdapter(impl: ImplementationId): MlKemAdapter {
  return impl === 'openssl' ? openssl : noble;
}

function rejectsAsFalse(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch (error) {
    if (error instanceof CryptoError && (error.code === 'BAD_KEY' || error.code === 'BAD_LENGTH')) return false;
    throw error;
  }
}
