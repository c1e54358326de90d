// The memo envelope of D-032: ML-KEM-768 + HKDF-SHA256 + AES-256-GCM (a KEM-DEM construction).
//   data = "SVM" (0x53 0x56 0x4d) || version 0x01 || kemCiphertext (1,088 bytes) || nonce (12 bytes)
//          || AES-256-GCM ciphertext || tag (16 bytes)
//   AES key = HKDF-SHA256(ikm = ML-KEM shared secret, salt = kemCiphertext,
//                         info = "svckit/memo/v1" || recipient address (20 bytes)), 32 bytes
//   AAD = the 4-byte header; the plaintext is the UTF-8 memo.
// D-032: "binding the address stops an envelope being replayed to another recipient".
import { randomBytes } from 'node:crypto';
import { aes256Gcm } from './aes-gcm.ts';
import { assertBytes, concatBytes, fromHex } from './bytes.ts';
import { CryptoError } from './errors.ts';
import { hkdfSha256 } from './hkdf.ts';
import { mlKem768 } from './ml-kem.ts';

const MAGIC = Uint8Array.of(0x53, 0x56, 0x4d); // "SVM"
const VERSION = 0x01;
const HEADER = concatBytes(MAGIC, Uint8Array.of(VERSION));
const INFO_PREFIX = new TextEncoder().encode('svckit/memo/v1');
const KEM_CIPHERTEXT_BYTES = 1088;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A recipient address: 20 bytes, or "0x" followed by 40 hex digits (either case). */
export type RecipientAddress = Uint8Array | `0x${string}`;

/** Seals and opens D-032 memo envelopes. */
export const memoEnvelope = Object.freeze({
  /** The 4-byte header "SVM" || 0x01, which is also the AAD. */
  header: HEADER,

  /** The length of an envelope around an empty memo: 4 + 1,088 + 12 + 16 bytes. */
  minLength: HEADER.length + KEM_CIPHERTEXT_BYTES + NONCE_BYTES + TAG_BYTES,

  /** Encrypts a memo to the recipient's ML-KEM-768 encapsulation key, bound to the recipient's address. */
  seal(recipientPublicKey: Uint8Array, plaintext: Uint8Array | string, recipientAddress: RecipientAddress): Uint8Array {
    const address = addressBytes(recipientAddress);
    const body = typeof plaintext === 'string' ? new TextEncoder().encode(plaintext) : plaintext;
    assertBytes('plaintext', body);
    const { ciphertext: kemCiphertext, sharedSecret } = mlKem768.encapsulate(recipientPublicKey);
    const nonce = new Uint8Array(randomBytes(NONCE_BYTES));
    const sealed = aes256Gcm.encrypt(deriveKey(sharedSecret, kemCiphertext, address), nonce, body, HEADER);
    return concatBytes(HEADER, kemCiphertext, nonce, sealed);
  },

  /** Decrypts an envelope with the recipient's decapsulation key; CryptoError on a foreign, malformed or tampered envelope. */
  open(recipientSecretKey: Uint8Array, envelope: Uint8Array, recipientAddress: RecipientAddress): Uint8Array {
    const address = addressBytes(recipientAddress);
    assertBytes('envelope', envelope);
    if (!hasHeader(envelope)) {
      throw new CryptoError('BAD_ENVELOPE', 'memo envelope expected the header "SVM" 0x01 (D-032)');
    }
    if (envelope.length < memoEnvelope.minLength) {
      throw new CryptoError(
        'BAD_ENVELOPE',
        `memo envelope expected at least ${memoEnvelope.minLength} bytes (D-032), got ${envelope.length}`,
      );
    }
    const nonceAt = HEADER.length + KEM_CIPHERTEXT_BYTES;
    const kemCiphertext = envelope.subarray(HEADER.length, nonceAt);
    const nonce = envelope.subarray(nonceAt, nonceAt + NONCE_BYTES);
    const sealed = envelope.subarray(nonceAt + NONCE_BYTES);
    // A tampered kemCiphertext decapsulates to the implicit-rejection key, so GCM authentication fails.
    const sharedSecret = mlKem768.decapsulate(recipientSecretKey, kemCiphertext);
    return aes256Gcm.decrypt(deriveKey(sharedSecret, kemCiphertext, address), nonce, sealed, HEADER);
  },

  /** True when the bytes start with the envelope header (D-032: "a magic prefix lets tools tell an envelope from plain data"). */
  isEnvelope(data: Uint8Array): boolean {
    return data instanceof Uint8Array && hasHeader(data) && data.length >= memoEnvelope.minLength;
  },
});

function hasHeader(data: Uint8Array): boolean {
  return data.length >= HEADER.length && HEADER.every((byte, i) => data[i] === byte);
}

function deriveKey(sharedSecret: Uint8Array, kemCiphertext: Uint8Array, address: Uint8Array): Uint8Array {
  return hkdfSha256(sharedSecret, kemCiphertext, concatBytes(INFO_PREFIX, address), 32);
}

function addressBytes(address: RecipientAddress): Uint8Array {
  const bytes = typeof address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(address) ? fromHex(address) : address;
  if (!(bytes instanceof Uint8Array) || bytes.length !== 20) {
    throw new CryptoError(
      'BAD_INPUT',
      `"recipientAddress" expected 20 bytes or "0x" + 40 hex digits, got ${JSON.stringify(typeof address === 'string' ? address : `${(address as Uint8Array)?.length} bytes`)}`,
    );
  }
  return bytes;
}
