// HMAC-SHA256 (FIPS 198-1) through OpenSSL; it signs webhook deliveries (spec surface B: "each
// delivery carries an HMAC-SHA256 signature made with a shared secret").
import { createHmac } from 'node:crypto';
import { asUint8Array, assertBytes, equalBytes } from './bytes.ts';

/** HMAC-SHA256 of the message under the key: 32 bytes. */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  assertBytes('key', key);
  assertBytes('message', message);
  return asUint8Array(createHmac('sha256', key).update(message).digest());
}

/** True when `tag` is the full 32-byte HMAC-SHA256 of the message; compared in constant time. */
export function verifyHmacSha256(key: Uint8Array, message: Uint8Array, tag: Uint8Array): boolean {
  assertBytes('tag', tag);
  return equalBytes(hmacSha256(key, message), tag);
}
