/**
 * Reads of sealed blocks that the gateway's own methods make (eth_feeHistory, D-255; the filters, D-256): the
 * head, blocks by number through the sealed-block cache where the gateway has one, and receipts, in upstream
 * batches of at most {@link BATCH} calls.
 */
import type { FinalBlockCache } from '../../node/final-blocks.ts';
import { type RpcCall, type Upstream, UpstreamRpcError } from '../../node/upstream.ts';

/** Calls per upstream batch: the D-051 batch bound, kept for the node too. */
const BATCH = 100;

/** A block as eth_getBlockByNumber(n, false) answers it: the members the gateway reads. */
export type BlockHeader = {
  number: string;
  hash: string;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas?: string;
  transactions: string[];
};

/** A receipt: the members the fee history reads. */
export type ReceiptFees = { gasUsed: string; effectiveGasPrice?: string };

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** Blocks whose receipts' fees are kept (D-255). */
const RECEIPTS_KEPT = 4096;

/** Reads the chain for the gateway's own methods. */
export class ChainReader {
  private readonly receiptFees = new Map<number, ReceiptFees[]>();

  /** Over `upstream`, with the embedded chain's sealed-block cache when there is one. */
  constructor(
    private readonly upstream: Upstream,
    private readonly cache: FinalBlockCache | undefined,
  ) {}

  /** The newest sealed block number. */
  async head(): Promise<number> {
    return this.cache?.latest ?? Number(BigInt(await this.upstream.call<string>('eth_blockNumber')));
  }

  /** Blocks `from` to `to` (inclusive, both sealed), in order; hashes only. */
  async blocks(from: number, to: number): Promise<BlockHeader[]> {
    const out: (BlockHeader | undefined)[] = [];
    const misses: { index: number; call: RpcCall; store?: (result: unknown) => void }[] = [];
    for (let n = from; n <= to; n++) {
      const params = [hex(n), false];
      const found = this.cache?.lookup('eth_getBlockByNumber', params);
      if (found?.hit) out.push(found.value as BlockHeader);
      else {
        misses.push({
          index: out.length,
          call: { method: 'eth_getBlockByNumber', params },
          ...(found ? { store: found.store } : {}),
        });
        out.push(undefined);
      }
    }
    const results = await this.batched(misses.map((m) => m.call));
    misses.forEach((m, i) => {
      const block = results[i] as BlockHeader | null;
      if (!block) throw new Error(`the node has no block ${m.call.params[0]} at or below its head`);
      m.store?.(block);
      out[m.index] = block;
    });
    return out as BlockHeader[];
  }

  /**
   * The gas used and effective gas price of each receipt of each of `numbers`' sealed blocks, in order. Sealed
   * blocks are final (QBFT), so they are kept, the newest {@link RECEIPTS_KEPT} blocks' worth: a fee history asked
   * again, as wallets do before each transaction, reads no receipt twice.
   */
  async receipts(numbers: number[]): Promise<ReceiptFees[][]> {
    const missing = numbers.filter((n) => !this.receiptFees.has(n));
    const results = await this.batched(missing.map((n) => ({ method: 'eth_getBlockReceipts', params: [hex(n)] })));
    missing.forEach((n, i) => {
      const fees = ((results[i] as ReceiptFees[] | null) ?? []).map((r) => ({
        gasUsed: r.gasUsed,
        ...(r.effectiveGasPrice ? { effectiveGasPrice: r.effectiveGasPrice } : {}),
      }));
      this.receiptFees.set(n, fees);
      if (this.receiptFees.size > RECEIPTS_KEPT) this.receiptFees.delete(this.receiptFees.keys().next().value!);
    });
    return numbers.map((n) => this.receiptFees.get(n) ?? []);
  }

  /** The hashes of the transactions in the node's pool, ready and nonce-gapped. */
  async pooled(): Promise<string[]> {
    type ByNonce = Record<string, Record<string, { hash: string }>>;
    const content = await this.upstream.call<{ pending?: ByNonce; queued?: ByNonce }>('txpool_content');
    return [...Object.values(content.pending ?? {}), ...Object.values(content.queued ?? {})].flatMap((byNonce) =>
      Object.values(byNonce).map((tx) => tx.hash.toLowerCase()),
    );
  }

  /** Results of `calls`, in batches; an error answer throws it. */
  private async batched(calls: RpcCall[]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let i = 0; i < calls.length; i += BATCH) {
      const chunk = calls.slice(i, i + BATCH);
      const responses =
        chunk.length === 1
          ? [await this.upstream.send(chunk[0]!.method, chunk[0]!.params)]
          : await this.upstream.batch(chunk);
      for (const r of responses) {
        if (r.error) throw new UpstreamRpcError(r.error);
        out.push(r.result);
      }
    }
    return out;
  }
}
