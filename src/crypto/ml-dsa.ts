// ML-DSA-65 (FIPS 204). OpenSSL (node:crypto) is the default: pure signing through the external
// interface, empty context unless one is given, hedged (D-044). @noble/post-quantum serves what
// OpenSSL does not expose: a caller-supplied rnd, deterministic signing, the internal interface with
// an external mu, and HashML-DSA (pre-hash). Keys and signatures are FIPS 204 byte encodings.
import { assertBytes, assertLength } from './bytes.ts';
import { CryptoError } from './errors.ts';
import { keyPairFunctions } from './key-pairs.ts';
import { opensslMlDsa65Sign, opensslMlDsa65Verify, opensslMlDsa65VerifyAsync } from './backends/openssl-ml-dsa.ts';
import { ML_DSA_65, ML_DSA_65_SIZES } from './backends/parameter-sets.ts';
import {
  nobleMlDsa65ExpandedSecretKey,
  nobleMlDsa65Sign,
  nobleMlDsa65SignInternal,
  nobleMlDsa65SignPrehash,
  nobleMlDsa65VerifyInternal,
  nobleMlDsa65VerifyPrehash,
  type PreHashAlgorithm,
  type RandomnessChoice,
} from './backends/noble-ml-dsa.ts';

export type { PreHashAlgorithm } from './backends/noble-ml-dsa.ts';

/** An ML-DSA-65 key pair: the 1,952-byte public key and the 32-byte seed ξ kept as the secret key. */
export interface MlDsa65KeyPair {
  /** FIPS 204 pkEncode output, 1,952 bytes. */
  publicKey: Uint8Array;
  /** The 32-byte seed ξ (FIPS 204 Algorithm 6 input); every function also takes the 4,032-byte expanded key. */
  secretKey: Uint8Array;
}

/** Options of mlDsa65.sign and signPrehash. */
export interface MlDsa65SignOptions {
  /** FIPS 204 context string ctx, at most 255 bytes; default empty (D-044). */
  context?: Uint8Array;
  /** A caller-supplied 32-byte rnd (served by @noble/post-quantum). */
  rnd?: Uint8Array;
  /** rnd = {0}^32, the deterministic variant (served by @noble/post-quantum). */
  deterministic?: boolean;
}

/** Options of mlDsa65.signInternal. */
export interface MlDsa65InternalSignOptions {
  /** The input is a 64-byte mu computed outside (FIPS 204 §6.2, external mu). */
  externalMu?: boolean;
  /** A caller-supplied 32-byte rnd. */
  rnd?: Uint8Array;
  /** rnd = {0}^32. */
  deterministic?: boolean;
}

/** ML-DSA-65: key generation, signing and verification (FIPS 204, parameter set ML-DSA-65, category 3). */
export const mlDsa65 = Object.freeze({
  /** FIPS 204 Table 2 sizes in bytes. */
  sizes: ML_DSA_65_SIZES,

  ...keyPairFunctions(ML_DSA_65, nobleMlDsa65ExpandedSecretKey),

  /** FIPS 204 ML-DSA.Sign: pure, empty context unless given, hedged by OpenSSL unless rnd or deterministic is asked. */
  sign(secretKey: Uint8Array, message: Uint8Array, options: MlDsa65SignOptions = {}): Uint8Array {
    assertLength('secretKey', secretKey, ML_DSA_65_SIZES.seed, ML_DSA_65_SIZES.secretKey);
    assertBytes('message', message);
    const context = checkedContext(options.context);
    const randomness = randomnessOf(options);
    if (randomness.kind === 'hedged') return opensslMlDsa65Sign(secretKey, message, context);
    return nobleMlDsa65Sign(secretKey, message, context, randomness);
  },

  /** FIPS 204 ML-DSA.Verify (OpenSSL); false for a bad signature and for malformed keys, signatures or contexts. */
  verify(
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    options: { context?: Uint8Array } = {},
  ): boolean {
    assertBytes('publicKey', publicKey);
    assertBytes('message', message);
    assertBytes('signature', signature);
    if (options.context !== undefined) assertBytes('context', options.context);
    return opensslMlDsa65Verify(publicKey, message, signature, options.context);
  },

  /** ML-DSA.Verify as above, run on libuv's thread pool instead of the calling thread (servers). */
  verifyAsync(
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    options: { context?: Uint8Array } = {},
  ): Promise<boolean> {
    assertBytes('publicKey', publicKey);
    assertBytes('message', message);
    assertBytes('signature', signature);
    if (options.context !== undefined) assertBytes('context', options.context);
    return opensslMlDsa65VerifyAsync(publicKey, message, signature, options.context);
  },

  /** FIPS 204 ML-DSA.Sign_internal on M' (or on mu with externalMu), via @noble/post-quantum. */
  signInternal(secretKey: Uint8Array, messageOrMu: Uint8Array, options: MlDsa65InternalSignOptions = {}): Uint8Array {
    assertLength('secretKey', secretKey, ML_DSA_65_SIZES.seed, ML_DSA_65_SIZES.secretKey);
    if (options.externalMu) assertLength('mu', messageOrMu, 64);
    else assertBytes('message', messageOrMu);
    const randomness = randomnessOf(options);
    return nobleMlDsa65SignInternal(secretKey, messageOrMu, options.externalMu ?? false, randomness);
  },

  /** FIPS 204 ML-DSA.Verify_internal on M' (or on mu with externalMu), via @noble/post-quantum. */
  verifyInternal(
    publicKey: Uint8Array,
    messageOrMu: Uint8Array,
    signature: Uint8Array,
    options: { externalMu?: boolean } = {},
  ): boolean {
    assertBytes('publicKey', publicKey);
    assertBytes('messageOrMu', messageOrMu);
    assertBytes('signature', signature);
    return nobleMlDsa65VerifyInternal(publicKey, messageOrMu, signature, options.externalMu ?? false);
  },

  /** FIPS 204 HashML-DSA.Sign via @noble/post-quantum; CryptoError('REFUSED') for a pre-hash below λ = 192. */
  signPrehash(
    secretKey: Uint8Array,
    message: Uint8Array,
    hash: PreHashAlgorithm,
    options: MlDsa65SignOptions = {},
  ): Uint8Array {
    assertLength('secretKey', secretKey, ML_DSA_65_SIZES.seed, ML_DSA_65_SIZES.secretKey);
    assertBytes('message', message);
    return nobleMlDsa65SignPrehash(secretKey, message, checkedContext(options.context), hash, randomnessOf(options));
  },

  /** FIPS 204 HashML-DSA.Verify via @noble/post-quantum; CryptoError('REFUSED') for a refused pre-hash. */
  verifyPrehash(
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    hash: PreHashAlgorithm,
    options: { context?: Uint8Array } = {},
  ): boolean {
    assertBytes('publicKey', publicKey);
    assertBytes('message', message);
    assertBytes('signature', signature);
    return nobleMlDsa65VerifyPrehash(publicKey, message, signature, options.context ?? new Uint8Array(0), hash);
  },
});

// FIPS 204 Algorithm 2: "if |ctx| > 255 then return ⊥".
function checkedContext(context: Uint8Array | undefined): Uint8Array {
  if (context === undefined) return new Uint8Array(0);
  assertBytes('context', context);
  if (context.length > ML_DSA_65_SIZES.maxContext) {
    throw new CryptoError(
      'BAD_INPUT',
      `"context" expected at most 255 bytes (FIPS 204 Algorithm 2), got ${context.length}`,
    );
  }
  return context;
}

function randomnessOf(options: { rnd?: Uint8Array; deterministic?: boolean }): RandomnessChoice {
  if (options.rnd !== undefined && options.deterministic) {
    throw new CryptoError('BAD_INPUT', '"rnd" and "deterministic" exclude each other');
  }
  if (options.rnd !== undefined) {
    assertLength('rnd', options.rnd, 32);
    return { kind: 'given', rnd: options.rnd };
  }
  return options.deterministic ? { kind: 'deterministic' } : { kind: 'hedged' };
}
