/**
 * The explorer's only way to the chain: JSON-RPC batches through the gateway's dispatcher, so every view
 * reads what `/rpc` would answer (spec: "Anything it does can also be done directly via JSON-RPC") and a
 * cold `/txns` costs one round trip to the node, not 200.
 */
import { chainRpcErrorCodes, type ChainRpcMethod, type ChainRpcMethods } from '@svckit/sdk/chain';
import type { Block as RpcBlock } from '@svckit/sdk/chain/types';
import type { RpcErrorObject } from '../../node/upstream.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { hexToInt, toQuantity } from './format.ts';

/** One JSON-RPC call of the chain contract, typed by method. */
export type Call<M extends ChainRpcMethod = ChainRpcMethod> = { method: M; params: ChainRpcMethods[M]['params'] };

/** The results of a tuple of calls, in order. */
export type Results<C extends readonly Call[]> = {
  -readonly [K in keyof C]: C[K] extends Call<infer M> ? ChainRpcMethods[M]['result'] : never;
};

/** Builds a typed call. */
export const call = <M extends ChainRpcMethod>(method: M, ...params: ChainRpcMethods[M]['params']): Call<M> => ({
  method,
  params,
});

/** A block of the node that exists (number and hash are only null for the pending block). */
export type MinedBlock = RpcBlock & { number: string; hash: string };

/**
 * Blocks past the head hint fetched speculatively in a window read. A hint at most this stale still costs
 * one round trip; it is refreshed by every read and, on the embedded chain, by every sealed block.
 */
export const HEAD_LOOKAHEAD = 20;

/** Reads the chain through the dispatcher, keeping a hint of the head so windows cost one batch. */
export class ChainReader {
  private headHint: number | undefined;

  /** Reads through `dispatcher` (the same validation and relaying as POST /rpc). */
  constructor(private readonly dispatcher: RpcDispatcher) {}

  /** Records a head seen elsewhere (a sealed block), so the next window read needs one batch. */
  noteHead(blockNumber: number): void {
    this.headHint = blockNumber;
  }

  /** Sends `calls` as one JSON-RPC batch and returns their results in order, or throws. */
  async batch<const C extends readonly Call[]>(calls: C): Promise<Results<C>> {
    const requests = calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params }));
    const responses = calls.length ? await this.dispatcher.handleBatch(requests) : [];
    return responses.map((response, i) => {
      if (response.error) throw rpcFailure(calls[i]!.method, response.error);
      return response.result;
    }) as Results<C>;
  }

  /** The latest block number (eth_blockNumber). */
  async head(): Promise<number> {
    const [head] = await this.batch([call('eth_blockNumber')]);
    this.headHint = hexToInt(head);
    return this.headHint;
  }

  /**
   * The last `size` blocks (fewer near genesis), newest first, transactions as hashes, together with the
   * head they end at. One batch holds eth_blockNumber and the blocks around the head hint; only blocks the
   * hint missed (or a block sealed in the middle of the batch) are fetched in a second batch.
   */
  async window(size: number): Promise<{ head: number; blocks: MinedBlock[] }> {
    const hint = this.headHint;
    const speculative = hint === undefined ? [] : range(Math.max(0, hint - size + 1), hint + HEAD_LOOKAHEAD);
    const [headHex, ...found] = await this.batch([
      call('eth_blockNumber'),
      ...speculative.map((n) => call('eth_getBlockByNumber', toQuantity(n), false)),
    ]);
    const head = hexToInt(headHex as string);
    const wanted = range(Math.max(0, head - size + 1), head);
    const byNumber = new Map<number, MinedBlock>();
    for (const block of found as (RpcBlock | null)[])
      if (block?.number) byNumber.set(hexToInt(block.number), block as MinedBlock);
    const missing = wanted.filter((n) => !byNumber.has(n));
    if (missing.length) {
      const more = await this.batch(missing.map((n) => call('eth_getBlockByNumber', toQuantity(n), false)));
      more.forEach((block, i) => {
        if (!block?.number) throw new Error(`the node reported head ${head} but has no block ${missing[i]}`);
        byNumber.set(missing[i]!, block as MinedBlock);
      });
    }
    this.headHint = head;
    return { head, blocks: wanted.reverse().map((n) => byNumber.get(n)!) };
  }
}

/** Integers from..to inclusive (empty when to < from). */
function range(from: number, to: number): number[] {
  return to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/**
 * Maps a JSON-RPC error: the node unreachable (the dispatcher's -32002) → 503 whose text names no internal
 * address; anything else is a defect here → a plain Error, logged and answered with the generic 500.
 */
function rpcFailure(method: string, error: RpcErrorObject): Error {
  if (error.code === chainRpcErrorCodes.ResourceUnavailable)
    return new RestError(ErrorCode.CHAIN_UNAVAILABLE, 'the chain node does not answer; try again later');
  return new Error(`${method} failed with JSON-RPC error ${error.code}: ${error.message}`);
}
