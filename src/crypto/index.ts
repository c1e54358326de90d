// The crypto façade: the server and clients use these exports and nothing else for cryptography.
// OpenSSL (node:crypto, OpenSSL 3.5) first; @noble/post-quantum where OpenSSL lacks the interface.
export { CryptoError, type CryptoErrorCode } from './errors.ts';
export { toHex, fromHex, equalBytes, concatBytes } from './bytes.ts';
export {
  mlDsa65,
  type MlDsa65KeyPair,
  type MlDsa65SignOptions,
  type MlDsa65InternalSignOptions,
  type PreHashAlgorithm,
} from './ml-dsa.ts';
export { mlKem768, type MlKem768KeyPair, type MlKem768Encapsulation } from './ml-kem.ts';
export { aes256Gcm, AES_256_GCM_SIZES } from './aes-gcm.ts';
export { hmacSha256, verifyHmacSha256 } from './hmac.ts';
export { sha3_256 } from './sha3.ts';
export { hkdfSha256 } from './hkdf.ts';
export { memoEnvelope, type RecipientAddress } from './memo-envelope.ts';
export { cryptoBackends, type CryptoBackend } from './backends.ts';
