/**
 * The `chain-address` string format of the wallet contract (D-188, after D-035 and D-040): an EVM address
 * (single case or a valid EIP-55 checksum), a Bitcoin P2WPKH address with a valid bech32 checksum, or a Tron
 * address with a valid base58check. Registered with every ajv that validates against the contracts, and
 * given as a fast-check arbitrary for generated cases.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Ajv } from 'ajv';
import fc from 'fast-check';
import { addressOf } from '@svckit/sdk/wallet-library';
import { isChainAddress } from '../../src/server/wallet/addresses.ts';
import { evmAddress } from './evm-address.ts';

/** The format's name, as the contracts write it (`format: chain-address`). */
export const CHAIN_ADDRESS_FORMAT = 'chain-address';

export { isChainAddress };

/** Registers the format with an ajv instance (draft-07 or 2020-12); returns it. */
export function addChainAddressFormat<T extends Pick<Ajv, 'addFormat'>>(ajv: T): T {
  ajv.addFormat(CHAIN_ADDRESS_FORMAT, { type: 'string', validate: isChainAddress });
  return ajv;
}

/** A compressed secp256k1 public key of a random valid private key. */
const publicKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((bytes) => secp256k1.utils.isValidSecretKey(bytes))
  .map((secret) => secp256k1.getPublicKey(secret, true));

/** Valid chain addresses of every family: EVM in its three spellings, Bitcoin P2WPKH and Tron. */
export function chainAddress(): fc.Arbitrary<string> {
  return fc.oneof(
    evmAddress(),
    publicKey.map((key) => addressOf('bitcoin', key)),
    publicKey.map((key) => addressOf('tron', key)),
  );
}
