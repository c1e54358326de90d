/**
 * Chain keys from one BIP-39 seed (specs/wallet-session.openapi.yaml rule 7):
 *   native chain, Ethereum and EVM chains  BIP-44  m/44'/60'/0'/0/i   EIP-55 0x address
 *   Bitcoin                                BIP-84  m/84'/0'/0'/0/i    P2WPKH bech32 bc1q... (BIP-173)
 *   Tron                                   BIP-44  m/44'/195'/0'/0/i  base58check 0x41 || keccak20 -> T...
 * Isomorphic (@scure and @noble only, no node: imports): the browser extension bundles it too.
 */
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, generateMnemonic as scureGenerate, mnemonicToEntropy, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bech32, createBase58check } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
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

/** A derived chain key. `privateKey` never leaves the device (rule 1). */
export interface ChainKey {
  family: ChainFamily;
  /** The BIP-32 path it was derived at. */
  path: string;
  index: number;
  /** 32-byte secp256k1 secret scalar. */
  privateKey: Uint8Array;
  /** 33-byte compressed SEC1 public key. */
  publicKey: Uint8Array;
  /** The chain address in its contract format (`ChainAddress`). */
  address: string;
}

/** The BIP-32 path of a key family at an address index (spec rule 7 of the wallet). */
export function derivationPath(family: ChainFamily, index = 0): string {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new KeyError(`"index" expected an integer 0 to 2^31-1, got ${index}`);
  switch (family) {
    case 'evm':
      return `m/44'/60'/0'/0/${index}`;
    case 'bitcoin':
      return `m/84'/0'/0'/0/${index}`;
    case 'tron':
      return `m/44'/195'/0'/0/${index}`;
  }
}

/** A fresh English BIP-39 mnemonic: 24 words (256 bits) by default, 12 words with strength 128. */
export function generateMnemonic(strength: 128 | 256 = 256): string {
  return scureGenerate(wordlist, strength);
}

/** True for a valid English BIP-39 mnemonic (words and checksum). */
export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalizeMnemonic(mnemonic), wordlist);
}

/** The BIP-39 entropy of a mnemonic (16 to 32 bytes): what guardian recovery splits. */
export function mnemonicEntropy(mnemonic: string): Uint8Array {
  const normalized = checkedMnemonic(mnemonic);
  return mnemonicToEntropy(normalized, wordlist);
}

/** The mnemonic of BIP-39 entropy (inverse of {@link mnemonicEntropy}). */
export function mnemonicFromEntropy(entropy: Uint8Array): string {
  if (!(entropy instanceof Uint8Array) || ![16, 20, 24, 28, 32].includes(entropy.length)) throw new KeyError(`"entropy" expected 16, 20, 24, 28 or 32 bytes (BIP-39), got ${entropy instanceof Uint8Array ? entropy.length : typeof entropy}`);
  return entropyToMnemonic(entropy, wordlist);
}

/** The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512, 2,048 iterations, salt "mnemonic" || passphrase (NFKD). */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  return mnemonicToSeedSync(checkedMnemonic(mnemonic), passphrase);
}

/** Derives the chain key of a family at an index from the 64-byte BIP-39 seed. */
export function deriveChainKey(seed: Uint8Array, family: ChainFamily, index = 0): ChainKey {
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64) throw new KeyError(`"seed" expected a 16- to 64-byte Uint8Array (BIP-32), got ${seed instanceof Uint8Array ? `${seed.length} bytes` : typeof seed}`);
  const path = derivationPath(family, index);
  const node = HDKey.fromMasterSeed(seed).derive(path);
  if (!node.privateKey || !node.publicKey) throw new KeyError(`no key at ${path}`);
  return { family, path, index, privateKey: node.privateKey, publicKey: node.publicKey, address: addressOf(family, node.publicKey) };
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

/** EIP-55 mixed-case checksum of a 40-hex address (with or without 0x). */
export function toChecksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new KeyError(`expected 0x + 40 hex digits, got ${JSON.stringify(address)}`);
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

/** HASH160 = RIPEMD-160(SHA-256(x)). */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/** BIP-173 P2WPKH address (`bc1q...`): witness v0 program HASH160 of the compressed key. */
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
  if (decoded.prefix !== 'bc' || version !== 0 || program.length !== 20) throw new KeyError(`expected a mainnet P2WPKH address (bc1q..., witness v0, 20 bytes), got "${address}"`);
  return program;
}

const base58check = createBase58check(sha256);

/** Tron address: base58check of 0x41 || the 20 EVM address bytes (T + 33 characters). */
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
  if (bytes.length !== 21 || bytes[0] !== 0x41) throw new KeyError(`expected a Tron mainnet address (0x41 + 20 bytes), got "${address}"`);
  return bytes;
}

/** The key family an address belongs to, read from its format as the server does (D-035, `ChainAddress`). */
export function familyOfAddress(address: string): ChainFamily {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'evm';
  if (/^bc1q[02-9ac-hj-np-z]{38}$/.test(address)) return 'bitcoin';
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'tron';
  throw new KeyError(`"address" expected an EVM (0x + 40 hex), Bitcoin (bc1q...) or Tron (T...) address, got ${JSON.stringify(address)}`);
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
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) throw new KeyError(`expected an even number of hex digits, got ${JSON.stringify(hex.slice(0, 24))}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ').toLowerCase();
}

function checkedMnemonic(mnemonic: string): string {
  const normalized = normalizeMnemonic(mnemonic);
  if (!validateMnemonic(normalized, wordlist)) throw new KeyError('the mnemonic is not a valid English BIP-39 phrase (unknown word, wrong length or bad checksum)');
  return normalized;
}
