/**
 * The wallet service's own ML-DSA-65 keys: the session-token key (published as the JWKS, D-018) and the
 * release key that signs the browser-extension package. Each is a 32-byte FIPS 204 seed, kept in the data
 * directory (mode 0600) when the stack persists, in memory otherwise (tests). Node 26 KeyObjects serve
 * `jose` directly (alg "ML-DSA-65", kty "AKP").
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { mlDsa65, toHex } from '../../crypto/index.ts';

/** One ML-DSA-65 signing key of the service. */
export type ServiceKey = {
  /** RFC 7638 thumbprint of the public JWK: the token header's `kid`. */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** FIPS 204 public key bytes (1,952). */
  publicBytes: Uint8Array;
  /** The public key as an AKP JWK (D-018 `Jwk`). */
  jwk: { kty: 'AKP'; alg: 'ML-DSA-65'; kid: string; pub: string };
  /** Pure ML-DSA-65 signature (D-044) over `data`. */
  sign(data: Uint8Array): Uint8Array;
};

/** Builds the key of a 32-byte seed ξ (Node 26 imports ML-DSA seeds as `raw-seed`). */
export async function serviceKeyFromSeed(seed: Uint8Array): Promise<ServiceKey> {
  const privateKey = createPrivateKey({ key: Buffer.from(seed), format: 'raw-seed', asymmetricKeyType: 'ml-dsa-65' });
  const publicKey = createPublicKey(privateKey);
  const publicBytes = new Uint8Array(publicKey.export({ format: 'raw-public' }));
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  return {
    kid,
    privateKey,
    publicKey,
    publicBytes,
    jwk: { kty: 'AKP', alg: 'ML-DSA-65', kid, pub: String(exported.pub) },
    sign: (data) => mlDsa65.sign(seed, data),
  };
}

/** Loads the seed `name` from `<dataDir>/wallet/`, creating it on first start; a fresh one when `dataDir` is null. */
export async function loadServiceKey(dataDir: string | null, name: string): Promise<ServiceKey> {
  if (dataDir === null) return serviceKeyFromSeed(new Uint8Array(randomBytes(32)));
  const dir = path.join(dataDir, 'wallet');
  const file = path.join(dir, `${name}.seed`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${toHex(new Uint8Array(randomBytes(32)))}\n`, { mode: 0o600, flag: 'wx' });
  }
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} expected 64 hex characters (an ML-DSA-65 seed)`);
  return serviceKeyFromSeed(new Uint8Array(Buffer.from(hex, 'hex')));
}
