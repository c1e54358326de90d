/**
 * The identity's svcId computed in the browser with @noble libraries, by the same derivation as the Node
 * library (src/client/wallet/identity.ts, D-119): ξ = HKDF-SHA256(seed, "", IDENTITY_INFO, 32),
 * pk = ML-DSA-65.KeyGen_internal(ξ), svcId = hex(SHA3-256(pk)[0..8]). The test suite checks both agree.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '../../src/client/wallet/keys.ts';

/** The info string of identity.ts (kept equal by test/wallet-client/extension-units.test.ts). */
export const IDENTITY_INFO_WEB = 'svckit/wallet/identity/ml-dsa-65/v1';

/** svcId of a 64-byte BIP-39 seed. */
export function svcIdOfSeed(seed: Uint8Array): string {
  const xi = hkdf(sha256, seed, new Uint8Array(0), new TextEncoder().encode(IDENTITY_INFO_WEB), 32);
  const { publicKey, secretKey } = ml_dsa65.keygen(xi);
  secretKey.fill(0);
  return bytesToHex(sha3_256(publicKey).subarray(0, 8));
}
