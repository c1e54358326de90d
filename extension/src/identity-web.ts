/**
 * The identity's svcId computed in the browser with @noble's ML-DSA-65, by the same derivation as the Node
 * library (src/client/wallet/identity.ts, D-119): ξ and svcId come from the shared codec
 * (src/client/wallet/codec.ts), pk = ML-DSA-65.KeyGen_internal(ξ). The test suite checks both agree.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { identityKeySeed, svcIdOf } from '../../src/client/wallet/codec.ts';

/** svcId of a 64-byte BIP-39 seed. */
export function svcIdOfSeed(seed: Uint8Array): string {
  const { publicKey, secretKey } = ml_dsa65.keygen(identityKeySeed(seed));
  secretKey.fill(0);
  return svcIdOf(publicKey);
}
