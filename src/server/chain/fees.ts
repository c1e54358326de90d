/**
 * D-255: eth_feeHistory, computed by the gateway from the sealed blocks and their receipts as Besu computes it
 * (EthFeeHistory): base fees as the blocks carry them (zero on this chain), gasUsed / gasLimit per block, and per
 * block the effective priority fee at each requested percentile, weighted by gas used (zeros for an empty block).
 * The node's own answer is not relayed: Anvil keeps the fee history of the blocks it mined since it started only,
 * and after a restart from its state file answers an oldestBlock that does not match its lists.
 */
import type { ChainReader, ReceiptFees } from './chain-reader.ts';
import { JsonRpcFailure } from './errors.ts';

/** Tags that name the newest sealed block (params.ts sends `safe` and `finalized` as `latest`, D-131). */
const HEAD_TAGS = new Set(['latest', 'pending']);

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** The fee history result (chain.openrpc.json FeeHistory). */
export type FeeHistory = {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward?: string[][];
};

/** eth_feeHistory(blockCount, newestBlock, rewardPercentiles?), its params validated by the contract. */
export async function feeHistory(params: unknown[], chain: ChainReader): Promise<FeeHistory> {
  const [countHex, newestTag, percentiles] = params as [string, string, number[] | undefined];
  const count = Number(BigInt(countHex));
  const head = await chain.head();
  const newest = HEAD_TAGS.has(newestTag) ? head : newestTag === 'earliest' ? 0 : Number(BigInt(newestTag));
  // D-197: a block past the head is the chain's state, not bad params.
  if (newest > head) throw new JsonRpcFailure('ResourceNotFound', `block ${hex(newest)} is past the head ${hex(head)}`);
  const oldest = Math.max(0, newest - count + 1);
  // The block after the newest one gives its base fee when it exists; past the head it is the next block's, 0 here.
  const blocks = await chain.blocks(oldest, Math.min(newest + 1, head));
  const range = blocks.slice(0, newest - oldest + 1);
  const next = blocks[newest - oldest + 1]?.baseFeePerGas ?? '0x0';
  const result: FeeHistory = {
    oldestBlock: hex(oldest),
    baseFeePerGas: [...range.map((b) => b.baseFeePerGas ?? '0x0'), next],
    gasUsedRatio: range.map((b) => (BigInt(b.gasLimit) === 0n ? 0 : Number(b.gasUsed) / Number(b.gasLimit))),
  };
  if (percentiles === undefined) return result;
  // Besu sorts the percentiles (execution-apis asks for increasing ones; Besu and the gateway take any order).
  const sorted = [...percentiles].sort((a, b) => a - b);
  const withTransactions = range.filter((b) => b.transactions.length > 0);
  const receipts = await chain.receipts(withTransactions.map((b) => Number(BigInt(b.number))));
  const byNumber = new Map(withTransactions.map((b, i) => [b.number, receipts[i]!]));
  result.reward = range.map((b) => {
    const blockReceipts = byNumber.get(b.number);
    return blockReceipts?.length
      ? rewards(sorted, BigInt(b.gasUsed), BigInt(b.baseFeePerGas ?? '0x0'), blockReceipts)
      : sorted.map(() => '0x0');
  });
  return result;
}

/**
 * Besu's percentile walk: the transactions sorted by effective priority fee, each percentile's answer the fee of
 * the transaction whose cumulative gas first reaches that share of the block's gas used.
 */
function rewards(percentiles: number[], blockGasUsed: bigint, baseFee: bigint, receipts: ReceiptFees[]): string[] {
  const txs = receipts
    .map((r) => {
      const price = BigInt(r.effectiveGasPrice ?? '0x0');
      return { gas: Number(BigInt(r.gasUsed)), tip: price > baseFee ? price - baseFee : 0n };
    })
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const out: string[] = [];
  let index = 0;
  let cumulative = txs[0]!.gas;
  for (const percentile of percentiles) {
    const threshold = (percentile * Number(blockGasUsed)) / 100;
    while (cumulative < threshold && index < txs.length - 1) {
      index += 1;
      cumulative += txs[index]!.gas;
    }
    out.push(hex(txs[index]!.tip));
  }
  return out;
}
