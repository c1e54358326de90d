/**
 * The keystore file format (specs/wallet.openapi.yaml rule 8: "Client-side keys live in an
 * AES-256-GCM keystore protected by Argon2id"), shared by the Node library (keystore.ts, node:crypto) and the
 * browser extension (WebCrypto + @noble/hashes), so a file written by one opens in the other. D-120.
 *
 *   { "format": "svckit-wallet-keystore", "version": 1,
 *     "kdf":    { "name": "argon2id", "v": 19, "memoryKiB": 65536, "passes": 3, "parallelism": 4, "salt": b64url(16) },
 *     "cipher": { "name": "aes-256-gcm", "nonce": b64url(12) },
 *     "ciphertext": b64url(ciphertext || 16-byte tag), "label"?: string }
 *
 *   key = Argon2id(password = UTF-8 NFKC password, salt, m, t, p, tag length 32)   (RFC 9106, version 0x13)
 *   AAD = UTF-8 of {"format","version","kdf","cipher","label"} as JSON in that fixed order, so a changed
 *         parameter, salt, nonce or label fails authentication instead of silently weakening the file.
 * Defaults: RFC 9106 §4 "second recommended option" (m = 64 MiB, t = 3, p = 4). Isomorphic.
 */
import { base64urlnopad } from '@scure/base';
import { SvcError } from '../../errors.ts';

/** Format name of the file. */
export const KEYSTORE_FORMAT = 'svckit-wallet-keystore';

/** Argon2id parameters of a keystore. */
export interface Argon2idParams {
  /** Memory in KiB (Argon2 m). */
  memoryKiB: number;
  /** Iterations (Argon2 t). */
  passes: number;
  /** Lanes (Argon2 p). */
  parallelism: number;
}

/** RFC 9106 §4 second recommended option: 64 MiB, 3 passes, 4 lanes (D-120). */
export const DEFAULT_ARGON2ID: Readonly<Argon2idParams> = Object.freeze({
  memoryKiB: 64 * 1024,
  passes: 3,
  parallelism: 4,
});

/** Bounds accepted when opening a file: below the floor a file is refused as too weak, above the ceiling as a memory bomb. */
export const ARGON2ID_BOUNDS = Object.freeze({
  minMemoryKiB: 8 * 1024,
  maxMemoryKiB: 4 * 1024 * 1024,
  minPasses: 1,
  maxPasses: 64,
  maxParallelism: 16,
});

/** The JSON keystore file. */
export interface KeystoreFile {
  format: typeof KEYSTORE_FORMAT;
  version: 1;
  kdf: { name: 'argon2id'; v: 19; memoryKiB: number; passes: number; parallelism: number; salt: string };
  cipher: { name: 'aes-256-gcm'; nonce: string };
  ciphertext: string;
  /** Optional public label (for example the svcId); authenticated, not secret. */
  label?: string;
}

/** Thrown for a malformed file or a wrong password. */
export class KeystoreError extends SvcError<'BAD_FORMAT' | 'WEAK_PARAMETERS' | 'WRONG_PASSWORD_OR_TAMPERED'> {
  override name = 'KeystoreError';
}

/** The password bytes fed to Argon2id: UTF-8 of the NFKC form (the same bytes on every device). */
export function passwordBytes(password: string): Uint8Array {
  if (typeof password !== 'string' || password.length === 0)
    throw new KeystoreError('BAD_FORMAT', '"password" expected a non-empty string');
  return new TextEncoder().encode(password.normalize('NFKC'));
}

/** Checks parameters against {@link ARGON2ID_BOUNDS}. */
export function checkArgon2Params(params: Argon2idParams): void {
  const b = ARGON2ID_BOUNDS;
  const ok = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  if (!ok(params.parallelism, 1, b.maxParallelism))
    throw new KeystoreError(
      'WEAK_PARAMETERS',
      `Argon2id parallelism expected 1 to ${b.maxParallelism}, got ${params.parallelism}`,
    );
  if (!ok(params.memoryKiB, Math.max(b.minMemoryKiB, 8 * params.parallelism), b.maxMemoryKiB))
    throw new KeystoreError(
      'WEAK_PARAMETERS',
      `Argon2id memory expected ${b.minMemoryKiB} to ${b.maxMemoryKiB} KiB, got ${params.memoryKiB}`,
    );
  if (!ok(params.passes, b.minPasses, b.maxPasses))
    throw new KeystoreError(
      'WEAK_PARAMETERS',
      `Argon2id passes expected ${b.minPasses} to ${b.maxPasses}, got ${params.passes}`,
    );
}

/** The header of a file (everything but the ciphertext), built from parameters, salt and nonce. */
export function keystoreHeader(
  params: Argon2idParams,
  salt: Uint8Array,
  nonce: Uint8Array,
  label?: string,
): Omit<KeystoreFile, 'ciphertext'> {
  checkArgon2Params(params);
  return {
    format: KEYSTORE_FORMAT,
    version: 1,
    kdf: {
      name: 'argon2id',
      v: 19,
      memoryKiB: params.memoryKiB,
      passes: params.passes,
      parallelism: params.parallelism,
      salt: base64urlnopad.encode(salt),
    },
    cipher: { name: 'aes-256-gcm', nonce: base64urlnopad.encode(nonce) },
    ...(label !== undefined ? { label } : {}),
  };
}

/** The AAD of a file: its header as JSON in a fixed member order. */
export function keystoreAad(file: Omit<KeystoreFile, 'ciphertext'>): Uint8Array {
  const { kdf, cipher } = file;
  const canonical = {
    format: file.format,
    version: file.version,
    kdf: {
      name: kdf.name,
      v: kdf.v,
      memoryKiB: kdf.memoryKiB,
      passes: kdf.passes,
      parallelism: kdf.parallelism,
      salt: kdf.salt,
    },
    cipher: { name: cipher.name, nonce: cipher.nonce },
    label: file.label ?? null,
  };
  return new TextEncoder().encode(JSON.stringify(canonical));
}

/** Validates a parsed file and returns its parts; KeystoreError('BAD_FORMAT' | 'WEAK_PARAMETERS'). */
export function parseKeystore(input: unknown): {
  file: KeystoreFile;
  params: Argon2idParams;
  salt: Uint8Array;
  nonce: Uint8Array;
  sealed: Uint8Array;
} {
  const file = (typeof input === 'string' ? safeJson(input) : input) as KeystoreFile;
  if (!file || typeof file !== 'object' || file.format !== KEYSTORE_FORMAT || file.version !== 1)
    throw new KeystoreError('BAD_FORMAT', `expected a ${KEYSTORE_FORMAT} version 1 file`);
  if (file.kdf?.name !== 'argon2id' || file.kdf.v !== 19)
    throw new KeystoreError('BAD_FORMAT', 'expected kdf argon2id version 19 (0x13)');
  if (file.cipher?.name !== 'aes-256-gcm') throw new KeystoreError('BAD_FORMAT', 'expected cipher aes-256-gcm');
  if (file.label !== undefined && typeof file.label !== 'string')
    throw new KeystoreError('BAD_FORMAT', '"label" expected a string');
  const params = { memoryKiB: file.kdf.memoryKiB, passes: file.kdf.passes, parallelism: file.kdf.parallelism };
  checkArgon2Params(params);
  const salt = b64(file.kdf.salt, 'kdf.salt');
  const nonce = b64(file.cipher.nonce, 'cipher.nonce');
  const sealed = b64(file.ciphertext, 'ciphertext');
  if (salt.length < 16)
    throw new KeystoreError('WEAK_PARAMETERS', `salt expected at least 16 bytes, got ${salt.length}`);
  if (nonce.length !== 12) throw new KeystoreError('BAD_FORMAT', `nonce expected 12 bytes, got ${nonce.length}`);
  if (sealed.length < 16) throw new KeystoreError('BAD_FORMAT', 'ciphertext shorter than the GCM tag');
  return { file, params, salt, nonce, sealed };
}

/** base64url without padding. */
export const b64url = Object.freeze({
  encode: (bytes: Uint8Array) => base64urlnopad.encode(bytes),
  decode: (text: string) => base64urlnopad.decode(text),
});

function b64(value: unknown, name: string): Uint8Array {
  if (typeof value !== 'string') throw new KeystoreError('BAD_FORMAT', `"${name}" expected base64url`);
  try {
    return base64urlnopad.decode(value);
  } catch {
    throw new KeystoreError('BAD_FORMAT', `"${name}" is not base64url without padding`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new KeystoreError('BAD_FORMAT', 'the keystore is not JSON');
  }
}
