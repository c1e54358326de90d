/**
 * Chain addresses of the wallet session API. D-035: "the chain is read from the address format": EVM and
 * native `0x` + 40 hex, Bitcoin P2WPKH `bc1q…`, Tron `T…`. Each address is checked fully here (EIP-55
 * checksum, bech32 checksum and witness program, base58check and the 0x41 prefix), so bad input is a 400 at
 * the edge (house rule 4). The encodings are the wallet library's (src/client/wallet/codec.ts), so the
 * server and the clients read addresses alike.
 */
import {
  addressFamily,
  p2wpkhProgram,
  toChecksumAddress,
  tronAddressBytes,
} from '@svckit/sdk/wallet-library/addresses';
import type { ChainFamily } from '@svckit/sdk/wallet-library';
import { ErrorCode, RestError } from '../http/errors.ts';

/** The address families D-035 distinguishes: the wallet library's chain families. */
export type AddressKind = ChainFamily;

/** The family of `address` by its format alone, or undefined (the codec's `addressFamily`). */
export { addressFamily as addressKind };

/** EIP-55: all lower, all upper, or a correct mixed-case checksum (D-040). */
export function checksumOk(address: string): boolean {
  return (
    (addressFamily(address) === 'evm' && toChecksumAddress(address) === address) ||
    address.slice(2) === address.slice(2).toLowerCase() ||
    address.slice(2) === address.slice(2).toUpperCase()
  );
}

/** True when `decode` accepts the address (its checksum and payload are valid). */
function decodes(decode: (address: string) => Uint8Array, address: string): boolean {
  try {
    decode(address);
    return true;
  } catch {
    return false;
  }
}

/**
 * True for a valid chain address (the contract's `chain-address` format, D-188): EVM with a valid EIP-55 case
 * (D-040), Bitcoin P2WPKH with its bech32 checksum and witness program, Tron with base58check and 0x41.
 */
export function isChainAddress(address: string): boolean {
  const kind = addressFamily(address);
  if (kind === 'evm') return checksumOk(address);
  if (kind === 'bitcoin') return decodes(p2wpkhProgram, address);
  if (kind === 'tron') return decodes(tronAddressBytes, address);
  return false;
}

/**
 * The canonical form of a valid address (EVM: EIP-55, D-040; others unchanged), or a 400 naming `field`.
 * The family must be one of `allowed` when given (an address of another chain's format is 400).
 */
export function canonicalAddress(
  field: string,
  address: string,
  allowed?: readonly AddressKind[],
  chainLabel?: string,
): { kind: AddressKind; address: string } {
  const kind = addressFamily(address);
  if (!kind || !isChainAddress(address)) {
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `"${field}" expected an EVM (0x + 40 hex, EIP-55 if mixed case), Bitcoin (bc1q...) or Tron (T...) address with a valid checksum, got ${JSON.stringify(address)}`,
    );
  }
  if (allowed && !allowed.includes(kind)) {
    const want =
      allowed[0] === 'evm'
        ? 'an EVM address (0x + 40 hex)'
        : allowed[0] === 'bitcoin'
          ? 'a Bitcoin address (bc1q...)'
          : 'a Tron address (T...)';
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `"${field}" expected ${want}${chainLabel ? ` for chainId ${chainLabel}` : ''}, got ${JSON.stringify(address)}`,
    );
  }
  return { kind, address: kind === 'evm' ? toChecksumAddress(address) : address };
}

/** The D-071 Chain ID line: 1111111 for every 0x address, otherwise the chain's name. */
export const messageChainId = (kind: AddressKind) => (kind === 'evm' ? '1111111' : kind);
