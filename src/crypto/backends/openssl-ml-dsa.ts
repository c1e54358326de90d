// ML-DSA-65 through OpenSSL 3.5 (node:crypto): the FIPS 204 external interface, pure, with a context
// string, hedged signing (OpenSSL draws rnd itself). node:crypto offers no internal interface, no
// caller-supplied rnd, no deterministic variant and no HashML-DSA; those live in noble-ml-dsa.ts.
import { sign, verify, type KeyObject } from 'node:crypto';
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
import { ML_DSA_65 } from './parameter-sets.ts';

/** Imports a 32-byte seed (ξ) or a 4,032-byte FIPS 204 expanded secret key as an OpenSSL key. */
export function importMlDsa65SecretKey(secretKey: Uint8Array): KeyObject {
  return importSecretKey(ML_DSA_65, secretKey);
}

/** Parsed public keys by their bytes (so each key is parsed once); KeyObjects are immutable. */
const publicKeys = new Map<string, KeyObject>();
/** At most this many parsed keys are kept; the oldest goes first. */
const PUBLIC_KEY_CACHE_SIZE = 1024;

/** Imports a 1,952-byte FIPS 204 public key (cached); OpenSSL refuses other lengths. */
export function importMlDsa65PublicKey(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64');
  const cached = publicKeys.get(id);
  if (cached) return cached;
  const key = importPublicKey(ML_DSA_65, publicKey);
  if (publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(id, key);
  return key;
}

/** FIPS 204 ML-DSA.KeyGen_internal(ξ): the public key and the seed OpenSSL keeps as the secret key. */
export function opensslMlDsa65KeygenFromSeed(seed: Uint8Array): KeyPair {
  return keyPairFromSeed(ML_DSA_65, seed);
}

/** The public key of a secret key (seed or expanded), as OpenSSL derives it. */
export function opensslMlDsa65PublicKey(secretKey: Uint8Array): Uint8Array {
  return derivePublicKey(ML_DSA_65, secretKey);
}

/**
 * True when OpenSSL's expansion of `seed` equals `expandedKey`: OpenSSL imports a PKCS#8 "both" key
 * only after expanding the seed and finding the same bytes (FIPS 204 Algorithm 6 on ξ).
 */
export function opensslMlDsa65SeedMatchesExpanded(seed: Uint8Array, expandedKey: Uint8Array): boolean {
  return seedMatchesExpanded(ML_DSA_65, seed, expandedKey);
}

/** FIPS 204 ML-DSA.Sign (Algorithm 2), hedged, with the given context (default empty). */
export function opensslMlDsa65Sign(
  secretKey: Uint8Array | KeyObject,
  message: Uint8Array,
  context?: Uint8Array,
): Uint8Array {
  const key = secretKey instanceof Uint8Array ? importMlDsa65SecretKey(secretKey) : secretKey;
  try {
    return asUint8Array(sign(null, message, context && context.length > 0 ? { key, context } : key));
  } catch (error) {
    throw new CryptoError('BAD_INPUT', `OpenSSL could not sign: ${(error as Error).message}`, { cause: error });
  }
}

/** FIPS 204 ML-DSA.Verify (Algorithm 3). Malformed keys, signatures or contexts verify as false. */
export function opensslMlDsa65Verify(
  publicKey: Uint8Array | KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
  context?: Uint8Array,
): boolean {
  try {
    const key = publicKey instanceof Uint8Array ? importMlDsa65PublicKey(publicKey) : publicKey;
    return verify(null, message, context && context.length > 0 ? { key, context } : key, signature);
  } catch {
    // spec-wise a wrong-length key or signature, or a context over 255 bytes, is simply not valid
    return false;
  }
}

/**
 * FIPS 204 ML-DSA.Verify (Algorithm 3) on libuv's thread pool (node:crypto's callback form), so a server's
 * event loop keeps serving while a 3,309-byte signature is checked. Same answers as opensslMlDsa65Verify.
 */
export function opensslMlDsa65VerifyAsync(
  publicKey: Uint8Array | KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
  context?: Uint8Array,
): Promise<boolean> {
  let key: KeyObject;
  try {
    key = publicKey instanceof Uint8Array ? importMlDsa65PublicKey(publicKey) : publicKey;
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    try {
      verify(null, message, context && context.length > 0 ? { key, context } : key, signature, (error, valid) =>
        resolve(!error && valid),
      );
    } catch {
      resolve(false);
    }
  });
}
