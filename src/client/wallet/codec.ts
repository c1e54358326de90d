/**
 * The address and identity encodings, in one place for the wallet library, the wallet server
 * (src/server/wallet/addresses.ts, signatures.ts) and the browser extension:
 *   native chain, Ethereum and EVM chains  EIP-55 0x address: keccak-256(X || Y)[12..32]
 *   Bitcoin                                BIP-173 P2WPKH bech32 bc1q...: witness v0, HASH160 of the compressed key
 *   Tron                                   base58check of 0x41 || the 20 EVM address bytes: T...
 *   identity                               ξ = HKDF-SHA256(seed, "", IDENTITY_INFO, 32) (D-119),
 *                                          svcId = hex(SHA3-256(pk)[0..8]) (D-031)
 * D-035: the chain of an address is read from its format. Browser-safe: @noble and @scure only, no node:
 * imports, so the extension bundles it as it is.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256, sha3_256 } from '@noble/hashes/sha3.js';
import { bech32, createBase58check } from '@scure/base';
import type { ChainFamily } from './networks.ts';
import { SvcError } from '../../errors.ts';

/** Thrown for a bad mnemonic, index or address. */
export class KeyError extends SvcError<'INVALID_KEY'> {
  override name = 'KeyError';
  /** Builds the error; its code is always `INVALID_KEY`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_KEY', message, options);
  }
}

/** Lower-case hex without prefix. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** Bytes of a hex string (optional 0x); KeyError on anything else. */
export function hexToBytes(hex: string): Uint8Array {
  const digits = hex.replace(/^0x/i, '');
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits))
    throw new KeyError(`expected an even number of hex digits, got ${JSON.stringify(hex.slice(0, 24))}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The family of an address by its format alone (D-035, `ChainAddress`), or undefined. */
export function addressFamily(address: string): ChainFamily | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'evm';
  if (/^bc1q[02-9ac-hj-np-z]{38}$/.test(address)) return 'bitcoin';
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'tron';
  return undefined;
}

/** The key family an address belongs to, read from its format as the server does (D-035); KeyError otherwise. */
export function familyOfAddress(address: string): ChainFamily {
  const family = addressFamily(address);
  if (family === undefined)
    throw new KeyError(
      `"address" expected an EVM (0x + 40 hex), Bitcoin (bc1q...) or Tron (T...) address, got ${JSON.stringify(address)}`,
    );
  return family;
}

/** The address of a secp256k1 public key (compressed or not) in a family's format. */
export function addressOf(family: ChainFamily, publicKey: Uint8Array): string {
  switch (family) {
    case 'evm':
      return evmAddress(publicKey);
    case 'bitcoin':
      return bitcoinP2wpkhAddress(publicKey);
    case 'tron':
      return tronAddress(publicKey);
  }
}

/** EIP-55 checksummed address: last 20 bytes of keccak-256 of the 64-byte uncompressed point. */
export function evmAddress(publicKey: Uint8Array): string {
  return toChecksumAddress(bytesToHex(evmAddressBytes(publicKey)));
}

/** The 20 address bytes of a public key, shared by EVM and Tron. */
export function evmAddressBytes(publicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** EIP-55 mixed-case checksum of a 40-hex address (with or without 0x); KeyError for anything else. */
export function toChecksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new KeyError(`expected 0x + 40 hex digits, got ${JSON.stringify(address)}`);
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

/** HASH160 = RIPEMD-160(SHA-256(x)), Bitcoin's key hash. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/** BIP-173 P2WPKH address (`bc1q...`) of a public key (compressed or not): witness v0 program HASH160 of the compressed key. */
export function bitcoinP2wpkhAddress(publicKey: Uint8Array): string {
  const compressed = secp256k1.Point.fromBytes(publicKey).toBytes(true);
  return bech32.encode('bc', [0, ...bech32.toWords(hash160(compressed))]);
}

/** The 20-byte witness program of a `bc1q` address; KeyError for anything else. */
export function p2wpkhProgram(address: string): Uint8Array {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(address.toLowerCase() as `${string}1${string}`);
  } catch (error) {
    throw new KeyError(`"${address}" is not a bech32 address: ${(error as Error).message}`);
  }
  const [version, ...rest] = decoded.words;
  const program = bech32.fromWords(rest);
  if (decoded.prefix !== 'bc' || version !== 0 || program.length !== 20)
    throw new KeyError(`expected a mainnet P2WPKH address (bc1q..., witness v0, 20 bytes), got "${address}"`);
  return program;
}

const base58check = createBase58check(sha256);

/** Tron address of a public key (compressed or not): base58check of 0x41 || the 20 EVM address bytes (T + 33 characters). */
export function tronAddress(publicKey: Uint8Array): string {
  return base58check.encode(Uint8Array.of(0x41, ...evmAddressBytes(publicKey)));
}

/** The 21 bytes (0x41 || 20) of a base58check Tron address; KeyError for anything else. */
export function tronAddressBytes(address: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(address);
  } catch (error) {
    throw new KeyError(`"${address}" is not a base58check Tron address: ${(error as Error).message}`);
  }
  if (bytes.length !== 21 || bytes[0] !== 0x41)
    throw new KeyError(`expected a Tron mainnet address (0x41 + 20 bytes), got "${address}"`);
  return bytes;
}

/** The HKDF info string of the identity derivation (D-119). Changing it changes every svcId. */
export const IDENTITY_INFO = 'svckit/wallet/identity/ml-dsa-65/v1';

/** FIPS 204 Table 2: an ML-DSA-65 public key is 1,952 bytes. */
const ML_DSA_65_PUBLIC_KEY_BYTES = 1952;

/** The 32-byte ML-DSA-65 key-generation seed ξ of a 64-byte BIP-39 seed (D-119): HKDF-SHA256(seed, "", IDENTITY_INFO, 32). */
export function identityKeySeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== 64)
    throw new TypeError(
      `"seed" expected the 64-byte BIP-39 seed, got ${seed instanceof Uint8Array ? `${seed.length} bytes` : typeof seed}`,
    );
  return hkdf(sha256, seed, new Uint8Array(0), new TextEncoder().encode(IDENTITY_INFO), 32);
}

/** svcId of an ML-DSA-65 public key: hex of the first 8 bytes of SHA3-256 (D-031). */
export function svcIdOf(publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== ML_DSA_65_PUBLIC_KEY_BYTES) {
    throw new TypeError(
      `"publicKey" expected a ${ML_DSA_65_PUBLIC_KEY_BYTES}-byte ML-DSA-65 public key, got ${publicKey instanceof Uint8Array ? publicKey.length : typeof publicKey}`,
    );
  }
  return bytesToHex(sha3_256(publicKey).subarray(0, 8));
}
