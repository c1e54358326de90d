/**
 * Chain keys from one BIP-39 seed (specs/wallet.openapi.yaml rule 7):
 *   native chain, Ethereum and EVM chains  BIP-44  m/44'/60'/0'/0/i   EIP-55 0x address
 *   Bitcoin                                BIP-84  m/84'/0'/0'/0/i    P2WPKH bech32 bc1q... (BIP-173)
 *   Tron                                   BIP-44  m/44'/195'/0'/0/i  base58check 0x41 || keccak20 -> T...
 * The address encodings are in codec.ts. Isomorphic (@scure and @noble only, no node: imports): the browser
 * extension bundles it too.
 */
import { HDKey } from '@scure/bip32';
import {
  entropyToMnemonic,
  generateMnemonic as scureGenerate,
  mnemonicToEntropy,
  mnemonicToSeedSync,
  validateMnemonic,
} from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { addressOf, KeyError } from './codec.ts';
import type { ChainFamily } from './networks.ts';

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
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000)
    throw new KeyError(`"index" expected an integer 0 to 2^31-1, got ${index}`);
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
  if (!(entropy instanceof Uint8Array) || ![16, 20, 24, 28, 32].includes(entropy.length))
    throw new KeyError(
      `"entropy" expected 16, 20, 24, 28 or 32 bytes (BIP-39), got ${entropy instanceof Uint8Array ? entropy.length : typeof entropy}`,
    );
  return entropyToMnemonic(entropy, wordlist);
}

/** The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512, 2,048 iterations, salt "mnemonic" || passphrase (NFKD). */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  return mnemonicToSeedSync(checkedMnemonic(mnemonic), passphrase);
}

/** Derives the chain key of a family at an index from the 64-byte BIP-39 seed. */
export function deriveChainKey(seed: Uint8Array, family: ChainFamily, index = 0): ChainKey {
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64)
    throw new KeyError(
      `"seed" expected a 16- to 64-byte Uint8Array (BIP-32), got ${seed instanceof Uint8Array ? `${seed.length} bytes` : typeof seed}`,
    );
  const path = derivationPath(family, index);
  const node = HDKey.fromMasterSeed(seed).derive(path);
  if (!node.privateKey || !node.publicKey) throw new KeyError(`no key at ${path}`);
  return {
    family,
    path,
    index,
    privateKey: node.privateKey,
    publicKey: node.publicKey,
    address: addressOf(family, node.publicKey),
  };
}

function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ').toLowerCase();
}

function checkedMnemonic(mnemonic: string): string {
  const normalized = normalizeMnemonic(mnemonic);
  if (!validateMnemonic(normalized, wordlist))
    throw new KeyError(
      'the mnemonic is not a valid English BIP-39 phrase (unknown word, wrong length or bad checksum)',
    );
  return normalized;
}
