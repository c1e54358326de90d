/**
 * Chain addresses of the wallet session API. D-035: "the chain is read from the address format": EVM and
 * native `0x` + 40 hex, Bitcoin P2WPKH `bc1q…`, Tron `T…`. Each address is checked fully here (EIP-55
 * checksum, bech32 checksum and witness program, base58check and the 0x41 prefix), so bad input is a 400 at
 * the edge (house rule 4), and derived from a recovered secp256k1 key for the signature checks.
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58check, bech32 } from '@scure/base';
import { getAddress, isAddress } from 'viem';
import { ErrorCode, RestError } from '../http/errors.ts';

/** The address families D-035 distinguishes. */
export type AddressKind = 'evm' | 'bitcoin' | 'tron';

const b58c = base58check(sha256);

/** The family of `address` by its format alone, or undefined. */
export function addressKind(address: string): AddressKind | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'evm';
  if (/^bc1q[02-9ac-hj-np-z]{38}$/.test(address)) return 'bitcoin';
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'tron';
  return undefined;
}

/** EIP-55: all lower, all upper, or a correct mixed-case checksum (D-040). */
export function checksumOk(address: string): boolean {
  return isAddress(address, { strict: true }) || address.slice(2) === address.slice(2).toLowerCase() || address.slice(2) === address.slice(2).toUpperCase();
}

function bitcoinProgram(address: string): Uint8Array | undefined {
  try {
    const { prefix, words } = bech32.decode(address as `${string}1${string}`);
    if (prefix !== 'bc' || words[0] !== 0) return undefined;
    const program = bech32.fromWords(words.slice(1));
    return program.length === 20 ? program : undefined;
  } catch {
    return undefined;
  }
}

function tronPayload(address: string): Uint8Array | undefined {
  try {
    const payload = b58c.decode(address);
    return payload.length === 21 && payload[0] === 0x41 ? payload : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The canonical form of a valid address (EVM: EIP-55, D-040; others unchanged), or a 400 naming `field`.
 * The family must be one of `allowed` when given (an address of another chain's format is 400).
 */
export function canonicalAddress(field: string, address: string, allowed?: readonly AddressKind[], chainLabel?: string): { kind: AddressKind; address: string } {
  const kind = addressKind(address);
  const valid =
    kind === 'evm' ? checksumOk(address) : kind === 'bitcoin' ? bitcoinProgram(address) !== undefined : kind === 'tron' ? tronPayload(address) !== undefined : false;
  if (!kind || !valid) {
    throw new RestError(ErrorCode.INVALID_PARAMETER, `"${field}" expected an EVM (0x + 40 hex, EIP-55 if mixed case), Bitcoin (bc1q...) or Tron (T...) address with a valid checksum, got ${JSON.stringify(address)}`);
  }
  if (allowed && !allowed.includes(kind)) {
    const want = allowed[0] === 'evm' ? 'an EVM address (0x + 40 hex)' : allowed[0] === 'bitcoin' ? 'a Bitcoin address (bc1q...)' : 'a Tron address (T...)';
    throw new RestError(ErrorCode.INVALID_PARAMETER, `"${field}" expected ${want}${chainLabel ? ` for chainId ${chainLabel}` : ''}, got ${JSON.stringify(address)}`);
  }
  return { kind, address: kind === 'evm' ? getAddress(address) : address };
}

/** hash160 = RIPEMD-160(SHA-256(x)), Bitcoin's key hash. */
const hash160 = (data: Uint8Array) => ripemd160(sha256(data));

/** The P2WPKH (bc1q…) address of a 33-byte compressed secp256k1 public key. */
export function p2wpkhAddress(compressedKey: Uint8Array): string {
  return bech32.encode('bc', [0, ...bech32.toWords(hash160(compressedKey))]);
}

/** The Tron base58check address (0x41 || last 20 bytes of keccak-256 of X||Y) of a 65-byte uncompressed key. */
export function tronAddress(uncompressedKey: Uint8Array): string {
  const hash = keccak_256(uncompressedKey.subarray(1));
  return b58c.encode(Uint8Array.of(0x41, ...hash.subarray(12)));
}

/** The D-071 Chain ID line: 1111111 for every 0x address, otherwise the chain's name. */
export const messageChainId = (kind: AddressKind) => (kind === 'evm' ? '1111111' : kind);
