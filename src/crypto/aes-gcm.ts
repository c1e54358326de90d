// AES-256-GCM (FIPS 197 with NIST SP 800-38D) through OpenSSL: a 96-bit nonce (SP 800-38D §8.2 IV
// construction length) and the full 128-bit tag, appended to the ciphertext.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { assertBytes, assertLength, concatBytes, asUint8Array } from './bytes.ts';
import { CryptoError } from './errors.ts';

/** Key, nonce and tag sizes in bytes. */
export const AES_256_GCM_SIZES = Object.freeze({ key: 32, nonce: 12, tag: 16 });

/** AES-256-GCM authenticated encryption. */
export const aes256Gcm = Object.freeze({
  /** Sizes in bytes. */
  sizes: AES_256_GCM_SIZES,

  /** Encrypts; returns ciphertext || 16-byte tag. The nonce must never repeat under one key (SP 800-38D §8). */
  encrypt(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array = new Uint8Array(0)): Uint8Array {
    assertLength('key', key, AES_256_GCM_SIZES.key);
    assertLength('nonce', nonce, AES_256_GCM_SIZES.nonce);
    assertBytes('plaintext', plaintext);
    assertBytes('aad', aad);
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: AES_256_GCM_SIZES.tag });
    cipher.setAAD(aad);
    return concatBytes(
      asUint8Array(cipher.update(plaintext)),
      asUint8Array(cipher.final()),
      asUint8Array(cipher.getAuthTag()),
    );
  },

  /** Decrypts ciphertext || tag; CryptoError('DECRYPT_FAILED') if authentication fails. */
  decrypt(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array = new Uint8Array(0)): Uint8Array {
    assertLength('key', key, AES_256_GCM_SIZES.key);
    assertLength('nonce', nonce, AES_256_GCM_SIZES.nonce);
    assertBytes('sealed', sealed);
    assertBytes('aad', aad);
    if (sealed.length < AES_256_GCM_SIZES.tag) {
      throw new CryptoError('BAD_LENGTH', `"sealed" expected at least 16 bytes (the tag), got ${sealed.length}`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: AES_256_GCM_SIZES.tag });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - AES_256_GCM_SIZES.tag));
    const body = sealed.subarray(0, sealed.length - AES_256_GCM_SIZES.tag);
    try {
      return concatBytes(asUint8Array(decipher.update(body)), asUint8Array(decipher.final()));
    } catch (error) {
      throw new CryptoError(
        'DECRYPT_FAILED',
        'AES-256-GCM authentication failed: wrong key, nonce or AAD, or tampered data',
        { cause: error },
      );
    }
  },
});
