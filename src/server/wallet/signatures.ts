/**
 * The two signatures of /auth/verify. spec: "The client signs message with both its chain key (classical
 * signature) and its ML-DSA-65 key." D-035 fixes the classical scheme per address family; D-044 the
 * ML-DSA-65 variant (pure, empty context). Each returns true or false; malformed encodings are false too,
 * since the contract's pattern has already been checked at the edge.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base64 } from '@scure/base';
import { isAddressEqual, recoverMessageAddress, type Hex } from 'viem';
import { bitcoinP2wpkhAddress, tronAddress } from '@svckit/sdk/wallet-library';
import { fromHex, mlDsa65 } from '@svckit/sdk/crypto';
import type { AddressKind } from './addresses.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Bitcoin's CompactSize length prefix. */
function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}

/** D-035: the "Bitcoin Signed Message" digest, SHA-256d(varint ‖ magic ‖ varint ‖ message). */
export function bitcoinMessageHash(message: string): Uint8Array {
  const magic = utf8('Bitcoin Signed Message:\n');
  const body = utf8(message);
  return sha256(sha256(new Uint8Array([...varint(magic.length), ...magic, ...varint(body.length), ...body])));
}

/** D-035: TIP-191, keccak-256 of "\x19TRON Signed Message:\n" + byte length + message. */
export function tronMessageHash(message: string): Uint8Array {
  const body = utf8(message);
  return keccak_256(new Uint8Array([...utf8(`\x19TRON Signed Message:\n${body.length}`), ...body]));
}

/** The public key recovered from r‖s and a recovery id over a 32-byte digest, in the requested encoding. */
function recover(rs: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean): Uint8Array {
  const point = secp256k1.Signature.fromBytes(rs, 'compact').addRecoveryBit(recovery).recoverPublicKey(digest);
  return point.toBytes(compressed);
}

/** EIP-191 personal_sign for EVM and the native chain: the signature must recover `address`. */
async function verifyEvm(address: string, message: string, signature: string): Promise<boolean> {
  const recovered = await recoverMessageAddress({ message, signature: signature as Hex });
  return isAddressEqual(recovered, address as Hex);
}

/** BIP-137 with the P2WPKH headers 39 to 42 (D-035): the recovered compressed key must derive `address`. */
function verifyBitcoin(address: string, message: string, signature: string): boolean {
  const bytes = base64.decode(signature);
  if (bytes.length !== 65 || bytes[0]! < 39 || bytes[0]! > 42) return false;
  const key = recover(bytes.subarray(1), bytes[0]! - 39, bitcoinMessageHash(message), true);
  return bitcoinP2wpkhAddress(key) === address;
}

/** TIP-191, r‖s‖v with v 27/28 (or 0/1): the recovered key must derive the Tron `address`. */
function verifyTron(address: string, message: string, signature: string): boolean {
  const bytes = fromHex(signature.slice(2));
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery > 1) return false;
  return tronAddress(recover(bytes.subarray(0, 64), recovery, tronMessageHash(message), false)) === address;
}

/** D-035: verifies `ecdsaSig` over `message` for an address of family `kind`. */
export async function verifyClassical(
  kind: AddressKind,
  address: string,
  message: string,
  signature: string,
): Promise<boolean> {
  try {
    if (kind === 'evm') return signature.startsWith('0x') && (await verifyEvm(address, message, signature));
    if (kind === 'bitcoin') return !signature.startsWith('0x') && verifyBitcoin(address, message, signature);
    return signature.startsWith('0x') && verifyTron(address, message, signature);
  } catch {
    // A signature whose r or s is out of range, or that recovers no point, does not verify.
    return false;
  }
}

/** D-044: pure ML-DSA-65, empty context, over the UTF-8 message. */
export function verifyPq(publicKey: Uint8Array, message: string, signatureHex: string): boolean {
  try {
    return mlDsa65.verify(publicKey, utf8(message), fromHex(signatureHex.toLowerCase()));
  } catch {
    return false;
  }
}
