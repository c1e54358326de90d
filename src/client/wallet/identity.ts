/**
 * The wallet identity (specs/wallet.openapi.yaml rule 5): an ML-DSA-65 key pair (FIPS 204) derived
 * deterministically from the BIP-39 seed, and its fingerprint `svcId` (D-031).
 *
 *   ξ      = HKDF-SHA256(ikm = 64-byte BIP-39 seed, salt = "" (RFC 5869: 32 zero bytes),
 *                        info = "svckit/wallet/identity/ml-dsa-65/v1", L = 32)          (D-119)
 *   (pk, sk) = ML-DSA.KeyGen_internal(ξ)   (FIPS 204 Algorithm 6; pk 1,952 bytes)
 *   svcId  = lower-case hex of SHA3-256(pk)[0..8]   (16 hex characters, D-031)
 *
 * ξ and svcId are encoded in codec.ts (shared with the browser extension); key generation and signatures are
 * pure ML-DSA-65, empty context, hedged (D-044), through the crypto façade.
 */
import { mlDsa65 } from '../../crypto/index.ts';
import { identityKeySeed, svcIdOf } from './codec.ts';

/** A wallet identity: the ML-DSA-65 key pair and its svcId. `secretKey` (the seed ξ) never leaves the device. */
export interface WalletIdentity {
  /** 16 lower-case hex characters (D-031). */
  svcId: string;
  /** FIPS 204 public key, 1,952 bytes. */
  publicKey: Uint8Array;
  /** The 32-byte ML-DSA seed ξ. */
  secretKey: Uint8Array;
}

/** Derives the identity of a 64-byte BIP-39 seed (D-119); the same seed always gives the same svcId. */
export function deriveIdentity(seed: Uint8Array): WalletIdentity {
  const { publicKey, secretKey } = mlDsa65.keygenFromSeed(identityKeySeed(seed));
  return { svcId: svcIdOf(publicKey), publicKey, secretKey };
}

/** Pure ML-DSA-65 signature (empty context unless given, hedged) over a UTF-8 string or bytes (D-044). */
export function signWithIdentity(
  identity: Pick<WalletIdentity, 'secretKey'>,
  message: string | Uint8Array,
  context?: Uint8Array,
): Uint8Array {
  const bytes = typeof message === 'string' ? new TextEncoder().encode(message) : message;
  return mlDsa65.sign(identity.secretKey, bytes, context ? { context } : {});
}

/** Verifies a pure ML-DSA-65 signature of the identity (D-044). */
export function verifyIdentitySignature(
  publicKey: Uint8Array,
  message: string | Uint8Array,
  signature: Uint8Array,
  context?: Uint8Array,
): boolean {
  const bytes = typeof message === 'string' ? new TextEncoder().encode(message) : message;
  return mlDsa65.verify(publicKey, bytes, signature, context ? { context } : {});
}
