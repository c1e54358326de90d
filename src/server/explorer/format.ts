/**
 * Pure conversions from JSON-RPC answers (hex QUANTITY strings, lower-case addresses) to the explorer's
 * views. Money stays bigint wei until the last step (house rule 5: never JS floats for amounts).
 */
import { getAddress, type Hex } from 'viem';
import type { Block as RpcBlock, Receipt, Transaction } from '@svckit/sdk/chain/types';
import type { Block, ExplorerTransaction, ExplorerTransactionStatus } from '@svckit/sdk/explorer';

/** 1 unit = 10^18 wei (D-033). */
export const WEI_PER_UNIT = 10n ** 18n;

/** Blocks averaged by /stats (spec: "averaged over the last 20 blocks"). */
export const AVG_BLOCK_WINDOW = 20;

/** A QUANTITY as a JS integer; refuses values beyond 2^53 rather than silently losing digits. */
export function hexToInt(quantity: string): number {
  const value = BigInt(quantity);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${quantity} exceeds the largest safe integer`);
  return Number(value);
}

/** A QUANTITY in canonical form: lower-case hex without leading zeros, `0x0` for zero. */
export function canonicalQuantity(quantity: string): Hex {
  return `0x${BigInt(quantity).toString(16)}`;
}

/** A block number as a JSON-RPC QUANTITY. */
export function toQuantity(n: number | bigint): Hex {
  return `0x${BigInt(n).toString(16)}`;
}

/**
 * Wei as units with exactly four fraction digits, truncated toward zero.
 * spec: "balance (string, decimal with four decimal places, in the native unit)"; D-033: truncation
 * "never shows more than is there".
 */
export function formatBalance(wei: bigint): string {
  if (wei < 0n) throw new RangeError('a balance cannot be negative');
  const whole = wei / WEI_PER_UNIT;
  const fraction = (wei % WEI_PER_UNIT) / 10n ** 14n;
  return `${whole}.${fraction.toString().padStart(4, '0')}`;
}

/**
 * D-041: `(t_latest - t_(latest-k)) / k` seconds with 2 decimals, k = min(20, latest) — "over fewer
 * blocks near genesis, `"0.00"` with one block". The third decimal is truncated, as amounts are (D-033).
 */
export function formatAvgBlockTime(latestTimestamp: number, earlierTimestamp: number, blocks: number): string {
  if (blocks <= 0) return '0.00';
  const hundredths = (BigInt(Math.max(0, latestTimestamp - earlierTimestamp)) * 100n) / BigInt(blocks);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/** The explorer block (spec: "Explorer block object") of a node block fetched with fullTxs = false. */
export function toExplorerBlock(block: RpcBlock): Block {
  const transactions = (block.transactions as unknown[]).map((t) =>
    (typeof t === 'string' ? t : (t as { hash: string }).hash).toLowerCase(),
  );
  return {
    number: hexToInt(block.number!),
    hash: block.hash!.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    timestamp: hexToInt(block.timestamp),
    gasUsed: hexToInt(block.gasUsed),
    gasLimit: hexToInt(block.gasLimit),
    txCount: transactions.length,
    transactions,
    // D-040: addresses in responses are EIP-55 checksummed; other hex is lower case.
    miner: getAddress(block.miner),
    size: hexToInt(block.size),
    extraData: block.extraData.toLowerCase(),
  };
}

/** D-004: Success for receipt status 0x1, Failed for 0x0, Pending while there is no receipt. */
export function transactionStatus(receipt: Pick<Receipt, 'status'> | null): ExplorerTransactionStatus {
  if (!receipt) return 'Pending';
  return BigInt(receipt.status) === 1n ? 'Success' : 'Failed';
}

/** The explorer transaction (spec: "Explorer transaction (with receipt data)"). */
export function toExplorerTransaction(tx: Transaction, receipt: Receipt | null): ExplorerTransaction {
  return {
    hash: tx.hash.toLowerCase(),
    // D-004: blockNumber and gasUsed are null while Pending.
    blockNumber: receipt ? hexToInt(receipt.blockNumber) : null,
    from: getAddress(tx.from),
    to: tx.to ? getAddress(tx.to) : null,
    value: canonicalQuantity(tx.value),
    gas: hexToInt(tx.gas),
    // The price actually paid once mined; spec: "The gas price is always 0", so both read 0x0 here.
    gasPrice: canonicalQuantity(receipt?.effectiveGasPrice ?? tx.gasPrice),
    nonce: hexToInt(tx.nonce),
    input: tx.input.toLowerCase(),
    status: transactionStatus(receipt),
    gasUsed: receipt ? hexToInt(receipt.gasUsed) : null,
  };
}
