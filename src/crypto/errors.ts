// Errors of the crypto façade. House rule 3: errors are classes with a stable code; the surfaces map
// them to their own error shape (a bad key or envelope from a client is a 400, never a 500).

import { SvcError } from '../errors.ts';

/** Stable codes of CryptoError. */
export type CryptoErrorCode =
  | 'BAD_LENGTH' // a key, seed, nonce, signature or ciphertext has the wrong byte length
  | 'BAD_INPUT' // an argument is of the wrong type or out of range (e.g. a context over 255 bytes)
  | 'BAD_KEY' // the backend refused the key material (FIPS 203 §7.2/§7.3 input checks, FIPS 204 key checks)
  | 'DECRYPT_FAILED' // AES-GCM authentication failed: wrong key, nonce, AAD, or tampered data
  | 'BAD_ENVELOPE' // the bytes are not a D-032 memo envelope
  | 'REFUSED' // the backend refuses the request (e.g. a pre-hash too weak for the parameter set)
  | 'UNSUPPORTED'; // this Node's OpenSSL lacks the algorithm (Node 20 and 22 load the SDK, D-229)

/** The one error class the façade throws; `code` is stable, `message` says what was expected and got. */
export class CryptoError extends SvcError<CryptoErrorCode> {
  override name = 'CryptoError';
}
