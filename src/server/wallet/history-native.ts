/**
 * Native-chain activity for /history, read through the gateway ("For the native chain, it comes from
 * the gateway"): the same dispatcher that answers `/rpc`, so the feed shows what any JSON-RPC client would
 * see. The observer keeps no address index, so the feed covers the last NATIVE_WINDOW blocks plus the
 * pending block (D-087); items carry D-067's values.
 */
import { getAddress, type Hex } from 'viem';
import type { HistoryItem } from '@svckit/sdk/wallet';
import type { RpcDispatcher } from '../chain/service.ts';
import { SvcError } from '@svckit/sdk/errors';

/** Blocks scanned back from the head (D-087). */
export const NATIVE_WINDOW = 1000;
const BATCH = 100;

type RpcTx = { hash: Hex; from: Hex; to: Hex | null; value: Hex; blockNumber: Hex | null };
type RpcBlock = { number: Hex | null; timestamp: Hex; transactions: RpcTx[] };

/** A JSON-RPC failure of the gateway (the node unreachable, or a defect), named for the source's `error`. */
export class GatewayError extends SvcError<'GATEWAY_FAILED'> {
  override name = 'GatewayError';
  /** Builds the error; its code is always `GATEWAY_FAILED`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('GATEWAY_FAILED', message, options);
  }
}

async function batch(dispatcher: RpcDispatcher, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i += BATCH) {
    const chunk = calls.slice(i, i + BATCH).map((c, id) => ({ jsonrpc: '2.0', id, ...c }));
    const responses = await dispatcher.handleBatch(chunk);
    for (const r of responses) {
      if (r.error)
        throw new GatewayError(
          r.error.code === -32002 ? 'the chain node does not answer' : `${r.error.code} ${r.error.message}`,
        );
      out.push(r.result);
    }
  }
  return out;
}

/** The native activity of `address` (EIP-55), pending first, then newest first. */
export async function nativeHistory(dispatcher: RpcDispatcher, address: Hex): Promise<HistoryItem[]> {
  const [headHex] = (await batch(dispatcher, [{ method: 'eth_blockNumber', params: [] }])) as Hex[];
  const head = Number(BigInt(headHex!));
  const from = Math.max(0, head - NATIVE_WINDOW + 1);
  const numbers = Array.from({ length: head - from + 1 }, (_, i) => head - i);
  const blocks = (await batch(dispatcher, [
    { method: 'eth_getBlockByNumber', params: ['pending', true] },
    ...numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, true] })),
  ])) as (RpcBlock | null)[];
  const mine = (tx: RpcTx) => sameAddress(tx.from, address) || (tx.to !== null && sameAddress(tx.to, address));
  const found: { tx: RpcTx; block: RpcBlock; pending: boolean }[] = [];
  const seen = new Set<string>();
  blocks.forEach((block, i) => {
    for (const tx of block?.transactions ?? []) {
      if (typeof tx !== 'object' || !mine(tx) || seen.has(tx.hash)) continue;
      seen.add(tx.hash);
      // Index 0 is the pending block: whatever it lists is not yet in a block (D-067 `pending`).
      found.push({ tx, block: block!, pending: i === 0 });
    }
  });
  const mined = found.filter((f) => !f.pending);
  const receipts = (await batch(
    dispatcher,
    mined.map((f) => ({ method: 'eth_getTransactionReceipt', params: [f.tx.hash] })),
  )) as ({ status: Hex } | null)[];
  const statusOf = new Map(
    mined.map((f, i) => [f.tx.hash, receipts[i]?.status === '0x0' ? 'failed' : 'confirmed'] as const),
  );
  return found.map(({ tx, block, pending }) => ({
    id: `1111111:${tx.hash.toLowerCase()}`,
    chainId: '1111111',
    txHash: tx.hash.toLowerCase(),
    from: getAddress(tx.from),
    to: tx.to ? getAddress(tx.to) : null,
    value: BigInt(tx.value).toString(),
    asset: 'SVC',
    // D-067: "a transfer to oneself is out".
    direction: sameAddress(tx.from, address) ? 'out' : 'in',
    status: pending ? 'pending' : (statusOf.get(tx.hash) ?? 'confirmed'),
    blockNumber: pending || tx.blockNumber === null ? null : Number(BigInt(tx.blockNumber)),
    timestamp: pending ? null : Number(BigInt(block.timestamp)),
  }));
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
