/**
 * D-040 and the contracts' `evm-address` format (D-172): an EVM address given by a client is `0x` + 40 hex
 * digits in all lower case, all upper case, or mixed case with a correct EIP-55 checksum; a mixed-case address
 * with a wrong checksum is a 400. Every REST surface reads client addresses through this one function.
 */
import type { Hex } from 'viem';
import { checksumOk } from '../wallet/addresses.ts';
import { toChecksumAddress } from '@svckit/sdk/wallet-library';
import { ErrorCode, RestError } from './errors.ts';

/** What a field holding an EVM address expects, for error texts. */
export const EVM_ADDRESS_EXPECTED = 'an EIP-55 checksummed or single-case 0x-prefixed 20-byte address';

/** The EIP-55 form of `value`, or a 400 naming `field` (D-040). */
export function evmAddressParam(field: string, value: string): Hex {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value) || !checksumOk(value))
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `"${field}" expected ${EVM_ADDRESS_EXPECTED}, got ${JSON.stringify(value)}`,
    );
  return toChecksumAddress(value) as Hex;
}
