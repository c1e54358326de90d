/**
 * The identity in the browser with @noble's ML-DSA-65, by the same derivation as the Node library
 * (identity.ts, D-119): ξ and svcId come from the shared codec (codec.ts), pk = ML-DSA-65.KeyGen_internal(ξ).
 * Signatures are pure ML-DSA-65, empty context, hedged (D-044), as the Node library's. The test suite checks
 * both sides agree (test/wallet-client/extension-units.test.ts).
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { identityKeySeed, svcIdOf } from './codec.ts';
import type { IdentitySigner } from './session-flow.ts';

/** svcId of a 64-byte BIP-39 seed. */
export function svcIdOfSeed(seed: Uint8Array): string {
  const { publicKey, secretKey } = ml_dsa65.keygen(identityKeySeed(seed));
  secretKey.fill(0);
  return svcIdOf(publicKey);
}

/** The identity key pair of a 64-byte BIP-39 seed; `secretKey` is noble's expanded FIPS 204 secret key. */
export function identityKeyPairWeb(seed: Uint8Array): { svcId: string; publicKey: Uint8Array; secretKey: Uint8Array } {
  const { publicKey, secretKey } = ml_dsa65.keygen(identityKeySeed(seed));
  return { svcId: svcIdOf(publicKey), publicKey, secretKey };
}

/** Pure ML-DSA-65 signature (empty context, hedged; D-044) over a UTF-8 string or bytes. */
export function signWithIdentityWeb(secretKey: Uint8Array, message: string | Uint8Array): Uint8Array {
  const bytes = typeof message === 'string' ? new TextEncoder().encode(message) : message;
  return ml_dsa65.sign(bytes, secretKey);
}

/**
 * The identity of a 64-byte BIP-39 seed as the session login signs with it (session-flow.ts
 * {@link IdentitySigner}); `wipe` zeroes the secret key, call it when the login is done.
 */
export function identitySignerWeb(seed: Uint8Array): IdentitySigner & { wipe(): void } {
  const { svcId, publicKey, secretKey } = identityKeyPairWeb(seed);
  return {
    svcId,
    publicKey,
    sign: (message) => signWithIdentityWeb(secretKey, message),
    wipe: () => secretKey.fill(0),
  };
}
