// Key import and export through OpenSSL 3.5 (node:crypto) shared by ML-DSA-65 (FIPS 204) and ML-KEM-768
// (FIPS 203): a secret key is a raw seed or an expanded key wrapped in PKCS#8 (pkcs8.ts), a public key is
// raw. The error messages name the parameter set and what each standard calls the key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { requireOpensslPqc } from './openssl-support.ts';
import { asUint8Array } from '../bytes.ts';
import { CryptoError } from '../errors.ts';
import type { ParameterSet } from './parameter-sets.ts';
import { pkcs8Both, pkcs8Expanded } from './pkcs8.ts';

/** A key pair as bytes: the raw public key and the secret key (a seed unless said otherwise). */
export type KeyPair = { publicKey: Uint8Array; secretKey: Uint8Array };

/** A fresh key pair from OpenSSL's random generator: the raw public key and the seed kept as the secret key. */
export function generateKeyPair(set: ParameterSet): KeyPair {
  requireOpensslPqc(set.type.toUpperCase());
  // One call per literal type: node:crypto's overloads take one key type each.
  const { publicKey, privateKey } =
    set.type === 'ml-dsa-65' ? generateKeyPairSync(set.type) : generateKeyPairSync(set.type);
  return {
    publicKey: asUint8Array(publicKey.export({ format: 'raw-public' })),
    secretKey: asUint8Array(privateKey.export({ format: 'raw-seed' })),
  };
}

/** Imports a seed or an expanded secret key as an OpenSSL key; any other length is a `BAD_LENGTH` error. */
export function importSecretKey(set: ParameterSet, secretKey: Uint8Array): KeyObject {
  requireOpensslPqc(set.type.toUpperCase());
  const { type, name, secretKeyName, sizes } = set;
  try {
    if (secretKey.length === sizes.seed) {
      return createPrivateKey({ key: secretKey, format: 'raw-seed', asymmetricKeyType: type });
    }
    if (secretKey.length === sizes.secretKey) {
      return createPrivateKey({ key: Buffer.from(pkcs8Expanded(type, secretKey)), format: 'der', type: 'pkcs8' });
    }
  } catch (error) {
    throw new CryptoError('BAD_KEY', `OpenSSL refused the ${name} ${secretKeyName}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  throw new CryptoError(
    'BAD_LENGTH',
    `${name} ${secretKeyName} expected ${sizes.seed} (seed) or ${sizes.secretKey} (expanded) bytes, got ${secretKey.length}`,
  );
}

/** Imports a raw public key as an OpenSSL key; any other length is a `BAD_LENGTH` error. */
export function importPublicKey(set: ParameterSet, publicKey: Uint8Array): KeyObject {
  requireOpensslPqc(set.type.toUpperCase());
  const { type, name, publicKeyName, sizes } = set;
  if (publicKey.length !== sizes.publicKey) {
    throw new CryptoError(
      'BAD_LENGTH',
      `${name} ${publicKeyName} expected ${sizes.publicKey} bytes, got ${publicKey.length}`,
    );
  }
  try {
    return createPublicKey({ key: publicKey, format: 'raw-public', asymmetricKeyType: type });
  } catch (error) {
    throw new CryptoError('BAD_KEY', `OpenSSL refused the ${name} ${publicKeyName}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The key pair of a seed (FIPS 204 ML-DSA.KeyGen_internal, FIPS 203 ML-KEM.KeyGen_internal); the seed is the secret key. */
export function keyPairFromSeed(set: ParameterSet, seed: Uint8Array): KeyPair {
  return { publicKey: derivePublicKey(set, seed), secretKey: new Uint8Array(seed) };
}

/** The raw public key of a secret key (seed or expanded), as OpenSSL derives it. */
export function derivePublicKey(set: ParameterSet, secretKey: Uint8Array): Uint8Array {
  return asUint8Array(createPublicKey(importSecretKey(set, secretKey)).export({ format: 'raw-public' }));
}

/**
 * True when OpenSSL's expansion of `seed` equals `expandedKey`: OpenSSL imports a PKCS#8 "both" key only
 * after expanding the seed and finding the same bytes.
 */
export function seedMatchesExpanded(set: ParameterSet, seed: Uint8Array, expandedKey: Uint8Array): boolean {
  try {
    createPrivateKey({ key: Buffer.from(pkcs8Both(set.type, seed, expandedKey)), format: 'der', type: 'pkcs8' });
    return true;
  } catch {
    return false;
  }
}
