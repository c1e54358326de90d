/**
 * The classical "sign message" scheme of each chain, as `ecdsaSig` of POST /auth/verify (D-035,
 * specs/wallet.openapi.yaml `ClassicalSignature`):
 *   EVM and native  EIP-191 personal_sign: keccak256("\x19Ethereum Signed Message:\n" + len + msg),
 *                   r || s || v (v = 27 + recid), 0x + 130 hex
 *   Tron            TIP-191: keccak256("\x19TRON Signed Message:\n" + len + msg), r || s || v, 0x + 130 hex
 *   Bitcoin P2WPKH  BIP-137: SHA256d(varstr("Bitcoin Signed Message:\n") || varstr(msg)),
 *                   header (39 + recid) || r || s, base64 (88 characters)
 * `len` is the decimal byte length of the UTF-8 message. ECDSA nonces are RFC 6979, s is low (BIP-62).
 * Isomorphic (@noble and @scure only): the browser extension bundles it too.
 */
import { base64 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { addressOf, bytesToHex, hexToBytes, KeyError } from './codec.ts';
import type { ChainKey } from './keys.ts';
import type { ChainFamily } from './networks.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** EIP-191 version 0x45 digest of a message (personal_sign). */
export function eip191Digest(message: string | Uint8Array): Uint8Array {
  return prefixedKeccak('\x19Ethereum Signed Message:\n', message);
}

/** TIP-191 digest of a message (Tron signMessageV2). */
export function tip191Digest(message: string | Uint8Array): Uint8Array {
  return prefixedKeccak('\x19TRON Signed Message:\n', message);
}

/** BIP-137 digest: double SHA-256 of the magic and the message, each with a CompactSize length. */
export function bip137Digest(message: string | Uint8Array): Uint8Array {
  const magic = utf8('Bitcoin Signed Message:\n');
  const body = typeof message === 'string' ? utf8(message) : message;
  return sha256(sha256(concat(compactSize(magic.length), magic, compactSize(body.length), body)));
}

/** Signs `message` with a chain key in its chain's scheme (D-035); the `ecdsaSig` string of the contract. */
export function signChainMessage(key: Pick<ChainKey, 'family' | 'privateKey'>, message: string | Uint8Array): string {
  const digest = digestOf(key.family, message);
  const recovered = secp256k1.sign(digest, key.privateKey, { prehash: false, lowS: true, format: 'recovered' });
  const recid = recovered[0]!;
  const rs = recovered.subarray(1);
  if (key.family === 'bitcoin') return base64.encode(concat(Uint8Array.of(39 + recid), rs)); // BIP-137 P2WPKH headers 39..42
  return `0x${bytesToHex(rs)}${(27 + recid).toString(16)}`;
}

/** The address whose key made `signature` over `message` in a family's scheme; KeyError when malformed. */
export function recoverChainMessageSigner(
  family: ChainFamily,
  message: string | Uint8Array,
  signature: string,
): string {
  const digest = digestOf(family, message);
  let recid: number;
  let rs: Uint8Array;
  if (family === 'bitcoin') {
    let raw: Uint8Array;
    try {
      raw = base64.decode(signature);
    } catch {
      throw new KeyError('BIP-137 signature expected 88 base64 characters');
    }
    if (raw.length !== 65 || raw[0]! < 39 || raw[0]! > 42)
      throw new KeyError(
        `BIP-137 P2WPKH signature expected 65 bytes with header 39 to 42, got ${raw.length} bytes, header ${raw[0]}`,
      );
    recid = raw[0]! - 39;
    rs = raw.subarray(1);
  } else {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new KeyError('signature expected 0x + 130 hex (r || s || v)');
    const raw = hexToBytes(signature);
    const v = raw[64]!;
    recid = v >= 27 ? v - 27 : v;
    if (recid > 1) throw new KeyError(`signature v expected 27 or 28, got ${v}`);
    rs = raw.subarray(0, 64);
  }
  const publicKey = secp256k1.recoverPublicKey(concat(Uint8Array.of(recid), rs), digest, { prehash: false });
  return addressOf(family, publicKey);
}

/** True when `signature` over `message` recovers to `address` in the address's scheme. */
export function verifyChainMessage(
  family: ChainFamily,
  address: string,
  message: string | Uint8Array,
  signature: string,
): boolean {
  try {
    const signer = recoverChainMessageSigner(family, message, signature);
    return family === 'evm' ? signer.toLowerCase() === address.toLowerCase() : signer === address;
  } catch {
    return false;
  }
}

function digestOf(family: ChainFamily, message: string | Uint8Array): Uint8Array {
  switch (family) {
    case 'evm':
      return eip191Digest(message);
    case 'tron':
      return tip191Digest(message);
    case 'bitcoin':
      return bip137Digest(message);
  }
}

function prefixedKeccak(prefix: string, message: string | Uint8Array): Uint8Array {
  const body = typeof message === 'string' ? utf8(message) : message;
  return keccak_256(concat(utf8(`${prefix}${body.length}`), body));
}

/** Bitcoin CompactSize (varint) of a length. */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  if (n <= 0xffffffff) return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  throw new KeyError(`length ${n} too large`);
}

/** Concatenation of byte arrays (noble's, browser-safe for the extension bundle). */
export const concat = concatBytes;
