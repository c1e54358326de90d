/**
 * The `evm-address` string format of the contracts (D-172, after D-040): `0x` + 40 hex digits, all lower
 * case, all upper case, or mixed case with a valid EIP-55 checksum. Registered with every ajv instance that validates against the
 * contracts, and given as a fast-check arbitrary for generated cases.
 */
import type { Ajv } from 'ajv';
import fc from 'fast-check';
import { toChecksumAddress } from '@svckit/sdk/wallet-library';
import { addressKind, checksumOk } from '../../src/server/wallet/addresses.ts';

/** The format's name, as the contracts write it (`format: evm-address`). */
export const EVM_ADDRESS_FORMAT = 'evm-address';

/** True when `value` is an evm-address: 0x + 40 hex, single case or a valid EIP-55 checksum. */
export function isEvmAddress(value: string): boolean {
  return addressKind(value) === 'evm' && checksumOk(value);
}

/** Registers the format with an ajv instance (draft-07 or 2020-12); returns it. */
export function addEvmAddressFormat<T extends Pick<Ajv, 'addFormat'>>(ajv: T): T {
  ajv.addFormat(EVM_ADDRESS_FORMAT, { type: 'string', validate: isEvmAddress });
  return ajv;
}

const hex40 = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('hex'));

/** Valid evm-addresses in each of the three accepted spellings: lower case, upper case, EIP-55. */
export function evmAddress(): fc.Arbitrary<string> {
  return fc.oneof(
    hex40.map((hex) => `0x${hex}`),
    hex40.map((hex) => `0x${hex.toUpperCase()}`),
    hex40.map((hex) => toChecksumAddress(`0x${hex}`)),
  );
}

/**
 * Strings the pattern `^0x[0-9a-fA-F]{40}$` accepts but the format refuses: an EIP-55 address with the case
 * of one letter flipped, so its checksum is wrong and it is still mixed case.
 */
export function evmAddressWithWrongChecksum(): fc.Arbitrary<string> {
  return fc
    .tuple(hex40, fc.nat())
    .map(([hex, pick]) => {
      const good = toChecksumAddress(`0x${hex}`);
      const letters = [...good.slice(2)].flatMap((c, i) => (/[a-fA-F]/.test(c) ? [i + 2] : []));
      if (letters.length === 0) return good;
      const at = letters[pick % letters.length]!;
      const c = good[at]!;
      const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      return `${good.slice(0, at)}${flipped}${good.slice(at + 1)}`;
    })
    .filter((address) => !isEvmAddress(address));
}
