// What each implementation offers for ML-DSA-65, as the ACVP and Wycheproof runners see it. Each
// refusal is a NotOffered with the reason reported for the skipped cases.
import {
  opensslMlDsa65KeygenFromSeed,
  opensslMlDsa65SeedMatchesExpanded,
  opensslMlDsa65Sign,
  opensslMlDsa65Verify,
} from '@svckit/sdk/crypto/backends';
import {
  nobleMlDsa65KeygenFromSeed,
  nobleMlDsa65Sign,
  nobleMlDsa65SignInternal,
  nobleMlDsa65SignPrehash,
  nobleMlDsa65Verify,
  nobleMlDsa65VerifyInternal,
  nobleMlDsa65VerifyPrehash,
  PREHASH_FUNCTIONS,
  type PreHashAlgorithm,
  type RandomnessChoice,
} from '@svckit/sdk/crypto/backends';
import { CryptoError } from '@svckit/sdk/crypto';
import { NotOffered, type ImplementationId } from '../implementations.ts';

/** A keyGen result: the public key, and the secret key or a way to compare one with the implementation's. */
export interface MlDsaKeyGenResult {
  /** pk from the seed. */
  pk: Uint8Array;
  /** sk from the seed, when the implementation exports it. */
  sk?: Uint8Array;
  /** Asks the implementation whether its sk from the seed equals `sk` (when it cannot export sk). */
  skMatches?: (sk: Uint8Array) => boolean;
}

/** The ML-DSA-65 operations ACVP exercises. */
export interface MlDsaAdapter {
  /** ML-DSA.KeyGen_internal(ξ). */
  keyGen(seed: Uint8Array): MlDsaKeyGenResult;
  /** External interface, pure. */
  signPure(sk: Uint8Array, message: Uint8Array, context: Uint8Array, randomness: RandomnessChoice): Uint8Array;
  /** External interface, HashML-DSA. */
  signPrehash(
    sk: Uint8Array,
    message: Uint8Array,
    context: Uint8Array,
    hash: string,
    randomness: RandomnessChoice,
  ): Uint8Array;
  /** Internal interface on M' or on mu. */
  signInternal(sk: Uint8Array, messageOrMu: Uint8Array, externalMu: boolean, randomness: RandomnessChoice): Uint8Array;
  /** External interface, pure. */
  verifyPure(pk: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array): boolean;
  /** External interface, HashML-DSA. */
  verifyPrehash(pk: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array, hash: string): boolean;
  /** Internal interface on M' or on mu. */
  verifyInternal(pk: Uint8Array, messageOrMu: Uint8Array, signature: Uint8Array, externalMu: boolean): boolean;
}

const VIA_NODE = 'not offered by OpenSSL through node:crypto';

const openssl: MlDsaAdapter = {
  keyGen(seed) {
    const { publicKey } = opensslMlDsa65KeygenFromSeed(seed);
    // node:crypto exports the seed, never the expanded sk; OpenSSL compares its own expansion instead.
    return { pk: publicKey, skMatches: (sk) => opensslMlDsa65SeedMatchesExpanded(seed, sk) };
  },
  signPure(sk, message, context, randomness) {
    if (randomness.kind === 'deterministic')
      throw new NotOffered(`deterministic signing (rnd = {0}^32) is ${VIA_NODE}`);
    if (randomness.kind === 'given') throw new NotOffered(`signing with a caller-supplied rnd is ${VIA_NODE}`);
    return opensslMlDsa65Sign(sk, message, context);
  },
  signPrehash() {
    throw new NotOffered(`HashML-DSA (pre-hash) is ${VIA_NODE}`);
  },
  signInternal() {
    throw new NotOffered(`the internal interface (ML-DSA.Sign_internal, external mu) is ${VIA_NODE}`);
  },
  verifyPure: (pk, message, signature, context) => opensslMlDsa65Verify(pk, message, signature, context),
  verifyPrehash() {
    throw new NotOffered(`HashML-DSA (pre-hash) is ${VIA_NODE}`);
  },
  verifyInternal() {
    throw new NotOffered(`the internal interface (ML-DSA.Verify_internal, external mu) is ${VIA_NODE}`);
  },
};

const noble: MlDsaAdapter = {
  keyGen(seed) {
    const { publicKey, secretKey } = nobleMlDsa65KeygenFromSeed(seed);
    return { pk: publicKey, sk: secretKey };
  },
  signPure: (sk, message, context, randomness) => nobleMlDsa65Sign(sk, message, context, randomness),
  signPrehash: (sk, message, context, hash, randomness) =>
    refusalAsNotOffered(hash, () => nobleMlDsa65SignPrehash(sk, message, context, preHashName(hash), randomness)),
  signInternal: (sk, messageOrMu, externalMu, randomness) =>
    nobleMlDsa65SignInternal(sk, messageOrMu, externalMu, randomness),
  verifyPure: (pk, message, signature, context) => nobleMlDsa65Verify(pk, message, signature, context),
  verifyPrehash: (pk, message, signature, context, hash) =>
    refusalAsNotOffered(hash, () => nobleMlDsa65VerifyPrehash(pk, message, signature, context, preHashName(hash))),
  verifyInternal: (pk, messageOrMu, signature, externalMu) =>
    nobleMlDsa65VerifyInternal(pk, messageOrMu, signature, externalMu),
};

/** The adapter of an implementation. */
export function mlDsaAdapter(impl: ImplementationId): MlDsaAdapter {
  return impl === 'openssl' ? openssl : noble;
}

function preHashName(hash: string): PreHashAlgorithm {
  if (!(hash in PREHASH_FUNCTIONS))
    throw new NotOffered(`pre-hash ${hash} is not a FIPS 204 §5.4 hash the noble backend knows`);
  return hash as PreHashAlgorithm;
}

// A skipped group names "a pre-hash it refuses". noble refuses hashes whose collision
// strength is below the parameter set's λ (192 bits for ML-DSA-65).
function refusalAsNotOffered<T>(hash: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CryptoError && error.code === 'REFUSED') {
      const detail = /strength too low: (\d+), required: (\d+)/.exec(
        String((error.cause as Error | undefined)?.message),
      );
      throw new NotOffered(
        detail
          ? `pre-hash ${hash} refused by @noble/post-quantum: collision strength ${detail[1]} bits is below λ = ${detail[2]}`
          : error.message,
      );
    }
    throw error;
  }
}
