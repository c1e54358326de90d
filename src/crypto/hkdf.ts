// HKDF-SHA256 (RFC 5869, NIST SP 800-56C) through OpenSSL; the memo envelope derives its AES key
// with it (D-032).
import { hkdfSync } from 'node:crypto';
import { assertBytes } from './bytes.ts';
import { CryptoError } from './errors.ts';

/** HKDF-SHA256 extract-and-expand to `length` bytes (1 to 8,160, RFC 5869 §2.3). */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  assertBytes('ikm', ikm);
  assertBytes('salt', salt);
  assertBytes('info', info);
  if (!Number.isInteger(length) || length < 1 || length > 255 * 32) {
    throw new CryptoError(
      'BAD_INPUT',
      `"length" expected an integer from 1 to 8160 (RFC 5869: L <= 255*HashLen), got ${length}`,
    );
  }
  return new Uint8Array(hkdfSync('sha256', ikm, salt, info, length));
}
