/**
 * The keystore in the browser: the same file format as the Node library (src/client/wallet/keystore-format.ts,
 * D-120), with Argon2id from @noble/hashes (argon2idAsync, so the page stays responsive) and AES-256-GCM
 * from WebCrypto. A file sealed by either side opens on the other (test/wallet-client/extension-units.test.ts).
 */
import { argon2idAsync } from '@noble/hashes/argon2.js';
import {
  DEFAULT_ARGON2ID,
  KeystoreError,
  b64url,
  keystoreAad,
  keystoreHeader,
  parseKeystore,
  passwordBytes,
  type Argon2idParams,
  type KeystoreFile,
} from './keystore-format.ts';

/** Argon2id (RFC 9106) through @noble/hashes: a 32-byte key. */
export function argon2idWeb(password: Uint8Array, salt: Uint8Array, params: Argon2idParams): Promise<Uint8Array> {
  return argon2idAsync(password, salt, {
    m: params.memoryKiB,
    t: params.passes,
    p: params.parallelism,
    dkLen: 32,
    asyncTick: 25,
  });
}

/** Seals bytes under a password (WebCrypto randomness for salt and nonce). */
export async function sealKeystoreWeb(
  password: string,
  plaintext: Uint8Array,
  options: { params?: Argon2idParams; label?: string } = {},
): Promise<KeystoreFile> {
  const params = options.params ?? DEFAULT_ARGON2ID;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const header = keystoreHeader(params, salt, nonce, options.label);
  const key = await aesKey(await argon2idWeb(passwordBytes(password), salt, params));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: buf(keystoreAad(header)), tagLength: 128 },
      key,
      buf(plaintext),
    ),
  );
  return { ...header, ciphertext: b64url.encode(sealed) };
}

/** Opens a keystore file; KeystoreError('WRONG_PASSWORD_OR_TAMPERED') when GCM authentication fails. */
export async function openKeystoreWeb(password: string, file: KeystoreFile | string): Promise<Uint8Array> {
  const parsed = parseKeystore(file);
  const key = await aesKey(await argon2idWeb(passwordBytes(password), parsed.salt, parsed.params));
  try {
    return new Uint8Array(
      await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: buf(parsed.nonce), additionalData: buf(keystoreAad(parsed.file)), tagLength: 128 },
        key,
        buf(parsed.sealed),
      ),
    );
  } catch {
    throw new KeystoreError(
      'WRONG_PASSWORD_OR_TAMPERED',
      'the keystore did not open: wrong password, or the file was changed',
    );
  }
}

async function aesKey(raw: Uint8Array): Promise<CryptoKey> {
  try {
    return await crypto.subtle.importKey('raw', buf(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
  } finally {
    raw.fill(0);
  }
}

/** WebCrypto's BufferSource wants an ArrayBuffer-backed view; every array here is one. */
const buf = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;
