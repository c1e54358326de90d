// ML-DSA-65 through OpenSSL 3.5 (node:crypto): the FIPS 204 external interface, pure, with a context
// string, hedged signing (OpenSSL draws rnd itself). node:crypto offers no internal interface, no
// caller-supplied rnd, no deterministic variant and no HashML-DSA; those live in noble-ml-dsa.ts.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { asUint8Array } from '../bytes.ts';
import { CryptoError } from '../errors.ts';
import { pkcs8Both, pkcs8Expanded } from './pkcs8.ts';

/** FIPS 204 Table 2 sizes for ML-DSA-65, in bytes. */
export const ML_DSA_65_SIZES = Object.freeze({
  publicKey: 1952,
  secretKey: 4032,
  seed: 32,
  signature: 3309,
  maxContext: 255,
});

/** Imports a 32-byte seed (ξ) or a 4,032-byte FIPS 204 expanded secret key as an OpenSSL key. */
export function importMlDsa65SecretKey(secretKey: Uint8Array): KeyObject {
  try {
    if (secretKey.length === ML_DSA_65_SIZES.seed) {
      return createPrivateKey({ key: secretKey, format: 'raw-seed', asymmetricKeyType: 'ml-dsa-65' });
    }
    if (secretKey.length === ML_DSA_65_SIZES.secretKey) {
      return createPrivateKey({
        key: Buffer.from(pkcs8Expanded('ml-dsa-65', secretKey)),
        format: 'der',
        type: 'pkcs8',
      });
    }
  } catch (error) {
    throw new CryptoError('bad_key', `OpenSSL refused the ML-DSA-65 secret key: ${(error as Error).message}`, {
      cause: error,
    });
  }
  throw new CryptoError(
    'bad_length',
    `ML-DSA-65 secret key expected 32 (seed) or 4032 (expanded) bytes, got ${secretKey.length}`,
  );
}

/** Parsed public keys by their bytes (so each key is parsed once); KeyObjects are immutable. */
const publicKeys = new Map<string, KeyObject>();
/** At most this many parsed keys are kept; the oldest goes first. */
const PUBLIC_KEY_CACHE_SIZE = 1024;

/** Imports a 1,952-byte FIPS 204 public key (cached); OpenSSL refuses other lengths. */
export function importMlDsa65PublicKey(publicKey: Uint8Array): KeyObject {
  if (publicKey.length !== ML_DSA_65_SIZES.publicKey) {
    throw new CryptoError('bad_length', `ML-DSA-65 public key expected 1952 bytes, got ${publicKey.length}`);
  }
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64');
  const cached = publicKeys.get(id);
  if (cached) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-65' });
  } catch (error) {
    throw new CryptoError('bad_key', `OpenSSL refused the ML-DSA-65 public key: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(id, key);
  return key;
}

/** FIPS 204 ML-DSA.KeyGen_internal(ξ): the public key and the seed OpenSSL keeps as the secret key. */
export function opensslMlDsa65KeygenFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const key = importMlDsa65SecretKey(seed);
  return { publicKey: exportRawPublic(createPublicKey(key)), secretKey: new Uint8Array(seed) };
}

/** The public key of a secret key (seed or expanded), as OpenSSL derives it. */
export function opensslMlDsa65PublicKey(secretKey: Uint8Array): Uint8Array {
  return exportRawPublic(createPublicKey(importMlDsa65SecretKey(secretKey)));
}

/**
 * True when OpenSSL's expansion of `seed` equals `expandedKey`: OpenSSL imports a PKCS#8 "both" key
 * only after expanding the seed and finding the same bytes (FIPS 204 Algorithm 6 on ξ).
 */
export function opensslMlDsa65SeedMatchesExpanded(seed: Uint8Array, expandedKey: Uint8Array): boolean {
  try {
    createPrivateKey({ key: Buffer.from(pkcs8Both('ml-dsa-65', seed, expandedKey)), format: 'der', type: 'pkcs8' });
    return true;
  } catch {
    return false;
  }
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
    throw new CryptoError('bad_input', `OpenSSL could not sign: ${(error as Error).message}`, { cause: error });
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

function exportRawPublic(key: KeyObject): Uint8Array {
  return asUint8Array(key.export({ format: 'raw-public' }));
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
