/**
 * The format checks of chain addresses (D-035: "the chain is read from the address format"), apart from
 * src/server/wallet/addresses.ts so that the settings table (src/config.ts) can check fee collectors without
 * loading viem, which every `svckit` command would otherwise wait for.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AddressKind } from './addresses.ts';

/** The family of `address` by its format alone, or undefined. */
export function addressKind(address: string): AddressKind | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'evm';
  if (/^bc1q[02-9ac-hj-np-z]{38}$/.test(address)) return 'bitcoin';
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'tron';
  return undefined;
}

/** EIP-55: the mixed-case form of a `0x` + 40 hex address (a letter is upper-case where its nibble of the hash is 8 or more). */
function eip55(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  return `0x${[...hex].map((c, i) => (Number.parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

/** EIP-55: all lower, all upper, or a correct mixed-case checksum (D-040). */
export function checksumOk(address: string): boolean {
  const body = address.slice(2);
  return (/^0x[0-9a-fA-F]{40}$/.test(address) && eip55(address) === address) || body === body.toLowerCase() || body === body.toUpperCase();
}
