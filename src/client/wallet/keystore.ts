/**
 * The Node keystore (specs/wallet.openapi.yaml rule 8): AES-256-GCM from the crypto façade, the key
 * from Argon2id in node:crypto (OpenSSL 3.5's implementation: `crypto.argon2(algorithm, {message, nonce,
 * parallelism, tagLength, memory /KiB/, passes})`, Node >= 24.7). File layout and AAD: keystore-format.ts.
 */
// A namespace import: Node 20 and 22 have no argon2, and the SDK still loads there (D-229).
import * as nodeCrypto from 'node:crypto';
import { requireOpensslPqc } from '../../crypto/backends/openssl-support.ts';
import { aes256Gcm, CryptoError } from '../../crypto/index.ts';
import {
  DEFAULT_ARGON2ID,
  KeystoreError,
  keystoreAad,
  keystoreHeader,
  parseKeystore,
  passwordBytes,
  b64url,
  type Argon2idParams,
  type KeystoreFile,
} from './keystore-format.ts';

export { DEFAULT_ARGON2ID, KeystoreError, type Argon2idParams, type KeystoreFile } from './keystore-format.ts';

/** Argon2id (RFC 9106, version 0x13) through node:crypto: a 32-byte key. */
export function argon2idKey(
  password: Uint8Array,
  salt: Uint8Array,
  params: Argon2idParams,
  extra: { secret?: Uint8Array; associatedData?: Uint8Array; tagLength?: number } = {},
): Promise<Uint8Array> {
  requireOpensslPqc('Argon2id');
  return new Promise((resolve, reject) => {
    nodeCrypto.argon2(
      'argon2id',
      {
        message: password,
        nonce: salt,
        parallelism: params.parallelism,
        tagLength: extra.tagLength ?? 32,
        memory: params.memoryKiB,
        passes: params.passes,
        ...(extra.secret ? { secret: extra.secret } : {}),
        ...(extra.associatedData ? { associatedData: extra.associatedData } : {}),
      },
      (error, key) => (error ? reject(error) : resolve(new Uint8Array(key.buffer, key.byteOffset, key.byteLength))),
    );
  });
}

/** Options of {@link sealKeystore}. */
export interface SealOptions {
  /** Argon2id parameters; default {@link DEFAULT_ARGON2ID}. */
  params?: Argon2idParams;
  /** A public label stored in clear and authenticated (for example the svcId). */
  label?: string;
}

/** Encrypts `plaintext` under a password into a keystore file (fresh 16-byte salt and 12-byte nonce). */
export async function sealKeystore(
  password: string,
  plaintext: Uint8Array,
  options: SealOptions = {},
): Promise<KeystoreFile> {
  const params = options.params ?? DEFAULT_ARGON2ID;
  const salt = new Uint8Array(nodeCrypto.randomBytes(16));
  const nonce = new Uint8Array(nodeCrypto.randomBytes(12));
  const header = keystoreHeader(params, salt, nonce, options.label);
  const key = await argon2idKey(passwordBytes(password), salt, params);
  try {
    const sealed = aes256Gcm.encrypt(key, nonce, plaintext, keystoreAad(header));
    return { ...header, ciphertext: b64url.encode(sealed) };
  } finally {
    key.fill(0);
  }
}

/** Decrypts a keystore file (object or JSON text); KeystoreError('WRONG_PASSWORD_OR_TAMPERED') when GCM fails. */
export async function openKeystore(password: string, file: KeystoreFile | string): Promise<Uint8Array> {
  const parsed = parseKeystore(file);
  const key = await argon2idKey(passwordBytes(password), parsed.salt, parsed.params);
  try {
    return aes256Gcm.decrypt(key, parsed.nonce, parsed.sealed, keystoreAad(parsed.file));
  } catch (error) {
    if (error instanceof CryptoError && error.code === 'DECRYPT_FAILED') {
      throw new KeystoreError(
        'WRONG_PASSWORD_OR_TAMPERED',
        'the keystore did not open: wrong password, or the file was changed',
      );
    }
    throw error;
  } finally {
    key.fill(0);
  }
}

/** The secrets a wallet keystore holds (JSON inside the ciphertext). */
export interface WalletSecrets {
  /** The BIP-39 mnemonic. */
  mnemonic: string;
  /** The optional BIP-39 passphrase ("25th word"). */
  passphrase?: string;
  /** This device's ML-KEM-768 sync key seed (64 bytes, hex), see sync.ts. */
  deviceKemSeed?: string;
  /** This device's sync id (16 hex). */
  deviceId?: string;
}

/** Seals wallet secrets as JSON (label: the svcId, when given). */
export function sealWalletSecrets(
  password: string,
  secrets: WalletSecrets,
  options: SealOptions = {},
): Promise<KeystoreFile> {
  return sealKeystore(password, new TextEncoder().encode(JSON.stringify(secrets)), options);
}

/** Opens a keystore written by {@link sealWalletSecrets}. */
export async function openWalletSecrets(password: string, file: KeystoreFile | string): Promise<WalletSecrets> {
  const plain = await openKeystore(password, file);
  const secrets = JSON.parse(new TextDecoder().decode(plain)) as WalletSecrets;
  if (typeof secrets?.mnemonic !== 'string') throw new KeystoreError('BAD_FORMAT', 'the keystore holds no mnemonic');
  return secrets;
}
