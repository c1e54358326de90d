// ML-DSA-65 through @noble/post-quantum, for what OpenSSL (node:crypto) does not expose (DESIGN house
// rule 9): caller-supplied rnd and deterministic signing (FIPS 204 Algorithm 2 with rnd = {0}^32),
// the internal interface (Algorithms 7 and 8) with an external mu, and HashML-DSA (Algorithms 4 and 5).
import { sha224, sha256, sha384, sha512, sha512_224, sha512_256 } from '@noble/hashes/sha2.js';
import { sha3_224, sha3_256, sha3_384, sha3_512, shake128_32, shake256_64 } from '@noble/hashes/sha3.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { CryptoError } from '../errors.ts';
import { ML_DSA_65_SIZES } from './parameter-sets.ts';

/** How a signature gets its 32-byte rnd (FIPS 204 Algorithm 2 step 5). */
export type RandomnessChoice =
  | { kind: 'hedged' } // fresh random bytes from the platform
  | { kind: 'deterministic' } // rnd = {0}^32
  | { kind: 'given'; rnd: Uint8Array }; // caller-supplied (ACVP non-deterministic tests)

/** The pre-hash functions HashML-DSA may use (FIPS 204 §5.4), named as ACVP names them. */
export const PREHASH_FUNCTIONS = Object.freeze({
  'SHA2-224': sha224,
  'SHA2-256': sha256,
  'SHA2-384': sha384,
  'SHA2-512': sha512,
  'SHA2-512/224': sha512_224,
  'SHA2-512/256': sha512_256,
  'SHA3-224': sha3_224,
  'SHA3-256': sha3_256,
  'SHA3-384': sha3_384,
  'SHA3-512': sha3_512,
  // FIPS 204 §5.4.1: SHAKE128 with 256-bit output and SHAKE256 with 512-bit output.
  'SHAKE-128': shake128_32,
  'SHAKE-256': shake256_64,
});

/** A pre-hash name from PREHASH_FUNCTIONS. */
export type PreHashAlgorithm = keyof typeof PREHASH_FUNCTIONS;

/** The FIPS 204 expanded secret key (4,032 bytes) of a seed, or the expanded key itself. */
export function nobleMlDsa65ExpandedSecretKey(secretKey: Uint8Array): Uint8Array {
  if (secretKey.length === ML_DSA_65_SIZES.secretKey) return secretKey;
  if (secretKey.length === ML_DSA_65_SIZES.seed) return ml_dsa65.keygen(secretKey).secretKey;
  throw new CryptoError(
    'BAD_LENGTH',
    `ML-DSA-65 secret key expected 32 (seed) or 4032 (expanded) bytes, got ${secretKey.length}`,
  );
}

/** FIPS 204 ML-DSA.KeyGen_internal(ξ) with the expanded secret key. */
export function nobleMlDsa65KeygenFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (seed.length !== ML_DSA_65_SIZES.seed) {
    throw new CryptoError('BAD_LENGTH', `ML-DSA-65 seed expected 32 bytes, got ${seed.length}`);
  }
  return ml_dsa65.keygen(seed);
}

/** The public key of a secret key (seed or expanded). */
export function nobleMlDsa65PublicKey(secretKey: Uint8Array): Uint8Array {
  return ml_dsa65.getPublicKey(nobleMlDsa65ExpandedSecretKey(secretKey));
}

/** FIPS 204 ML-DSA.Sign (external, pure) with the chosen randomness. */
export function nobleMlDsa65Sign(
  secretKey: Uint8Array,
  message: Uint8Array,
  context: Uint8Array,
  randomness: RandomnessChoice,
): Uint8Array {
  return guard(() =>
    ml_dsa65.sign(message, nobleMlDsa65ExpandedSecretKey(secretKey), { context, extraEntropy: entropy(randomness) }),
  );
}

/** FIPS 204 ML-DSA.Verify (external, pure). Malformed input verifies as false. */
export function nobleMlDsa65Verify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: Uint8Array,
): boolean {
  try {
    return ml_dsa65.verify(signature, message, publicKey, { context });
  } catch {
    return false;
  }
}

/** FIPS 204 ML-DSA.Sign_internal (Algorithm 7) on M', or on a 64-byte mu when `externalMu`. */
export function nobleMlDsa65SignInternal(
  secretKey: Uint8Array,
  messageOrMu: Uint8Array,
  externalMu: boolean,
  randomness: RandomnessChoice,
): Uint8Array {
  return guard(() =>
    ml_dsa65.internal.sign(messageOrMu, nobleMlDsa65ExpandedSecretKey(secretKey), {
      externalMu,
      extraEntropy: entropy(randomness),
    }),
  );
}

/** FIPS 204 ML-DSA.Verify_internal (Algorithm 8) on M', or on a 64-byte mu when `externalMu`. */
export function nobleMlDsa65VerifyInternal(
  publicKey: Uint8Array,
  messageOrMu: Uint8Array,
  signature: Uint8Array,
  externalMu: boolean,
): boolean {
  try {
    return ml_dsa65.internal.verify(signature, messageOrMu, publicKey, { externalMu });
  } catch {
    return false;
  }
}

/** FIPS 204 HashML-DSA.Sign (Algorithm 4); throws CryptoError('REFUSED') for a pre-hash noble refuses. */
export function nobleMlDsa65SignPrehash(
  secretKey: Uint8Array,
  message: Uint8Array,
  context: Uint8Array,
  hash: PreHashAlgorithm,
  randomness: RandomnessChoice,
): Uint8Array {
  const signer = prehashSigner(hash);
  return guard(() =>
    signer.sign(message, nobleMlDsa65ExpandedSecretKey(secretKey), { context, extraEntropy: entropy(randomness) }),
  );
}

/** FIPS 204 HashML-DSA.Verify (Algorithm 5); throws CryptoError('REFUSED') for a refused pre-hash. */
export function nobleMlDsa65VerifyPrehash(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: Uint8Array,
  hash: PreHashAlgorithm,
): boolean {
  const signer = prehashSigner(hash);
  try {
    return signer.verify(signature, message, publicKey, { context });
  } catch {
    return false;
  }
}

/** noble's HashML-DSA signer; noble refuses a hash whose collision strength is below λ = 192 bits. */
function prehashSigner(hash: PreHashAlgorithm) {
  const fn = PREHASH_FUNCTIONS[hash];
  if (!fn)
    throw new CryptoError(
      'BAD_INPUT',
      `pre-hash expected one of ${Object.keys(PREHASH_FUNCTIONS).join(', ')}, got ${JSON.stringify(hash)}`,
    );
  try {
    return ml_dsa65.prehash(fn);
  } catch (error) {
    throw new CryptoError(
      'REFUSED',
      `@noble/post-quantum refuses pre-hash ${hash} for ML-DSA-65: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function entropy(randomness: RandomnessChoice): Uint8Array | false | undefined {
  if (randomness.kind === 'deterministic') return false;
  if (randomness.kind === 'given') {
    if (randomness.rnd.length !== 32)
      throw new CryptoError('BAD_LENGTH', `rnd expected 32 bytes, got ${randomness.rnd.length}`);
    return randomness.rnd;
  }
  return undefined;
}

function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CryptoError) throw error;
    throw new CryptoError('BAD_INPUT', `@noble/post-quantum could not sign: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
