/**
 * Guards for the explorer's path parameters (house rule 4): the contract's generated zod schemas decide,
 * and a failure is a 400 naming the field, the expectation and the value (D-022), never a 500.
 */
import { EVM_ADDRESS_EXPECTED, evmAddressParam } from '../http/evm-address.ts';
import type { Hex } from 'viem';
import {
  zExplorerGetAddressBalancePath,
  zExplorerGetBlockPath,
  zExplorerGetTransactionPath,
} from '@svckit/sdk/explorer/zod';
import { guard } from '../http/guards.ts';

/** A block named by number or by hash. */
export type BlockRef = { kind: 'number'; number: bigint } | { kind: 'hash'; hash: Hex };

const BLOCK_ID = 'a decimal block number or a 0x-prefixed 32-byte block hash';
const TX_HASH = '0x-prefixed 32-byte hex';
const ADDRESS = EVM_ADDRESS_EXPECTED;

/**
 * D-041: `0` or a decimal without leading zeros, or `0x` + 64 hex; anything else (`0x10`, `010`,
 * `latest`) is 400 — "exact parsing avoids reading `0x10` as decimal 10".
 */
export function parseBlockId(params: unknown): BlockRef {
  const { id } = guard(zExplorerGetBlockPath, params, { id: BLOCK_ID });
  return id.startsWith('0x') ? { kind: 'hash', hash: id.toLowerCase() as Hex } : { kind: 'number', number: BigInt(id) };
}

/** spec: "hash: DATA(32)"; either case is accepted (D-040) and sent to the node in lower case. */
export function parseTxHash(params: unknown): Hex {
  return guard(zExplorerGetTransactionPath, params, { hash: TX_HASH }).hash.toLowerCase() as Hex;
}

/**
 * spec: "addr: DATA(20)". D-040: all lower, all upper or correctly EIP-55 checksummed; "a mixed-case
 * address with a wrong checksum is a 400". Returns the checksummed address.
 */
export function parseAddress(params: unknown): Hex {
  const { addr } = guard(zExplorerGetAddressBalancePath, params, { addr: ADDRESS });
  return evmAddressParam('addr', addr);
}
