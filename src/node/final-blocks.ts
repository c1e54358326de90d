/**
 * A cache of sealed blocks for the observer. QBFT blocks are final once sealed (no reorganisations), so a
 * block read by number or hash never changes; on the embedded chain the block producer reports every new
 * head, so `eth_blockNumber` and `latest` are known without asking the node. Used only when the gateway
 * drives the chain itself (embedded Anvil); an external node is always asked.
 */
import type { Hex } from 'viem';

type Entry = { key: string; value: unknown };

/** What a lookup found: a cached answer, or how to store the node's answer. */
export type CacheLookup = { hit: true; value: unknown } | { hit: false; store(result: unknown): void };

/** Sealed blocks by number and hash (both fullTxs variants), bounded, least recently used evicted. */
export class FinalBlockCache {
  private head: number | undefined;
  private readonly entries = new Map<string, Entry>();

  /** Keeps at most `capacity` blocks. */
  constructor(private readonly capacity = 2048) {}

  /** The newest sealed block number, when the producer has reported one. */
  get latest(): number | undefined {
    return this.head;
  }

  /** Records the newest sealed block number. */
  noteHead(number: number): void {
    if (this.head === undefined || number > this.head) this.head = number;
  }

  /**
   * Raises the head to a block the node has shown to exist. The node makes a block visible (receipts,
   * transactions, the block itself) a moment before the producer reports it sealed; without this a client
   * that has just read a receipt in block N could be told the head is N - 1 (and the explorer would read
   * balances there). Sealed blocks are final, so a block the node has returned is part of the chain.
   */
  observe(method: string, params: unknown[], result: unknown): void {
    if (this.head === undefined || result === null || typeof result !== 'object') return;
    const seen = result as { blockNumber?: unknown; number?: unknown; hash?: unknown };
    let number: unknown;
    if (method === 'eth_getTransactionReceipt' || method === 'eth_getTransactionByHash') number = seen.blockNumber;
    // "pending" is the node's block under construction (Anvil gives it a hash), not a sealed one.
    else if (method === 'eth_getBlockByHash' || (method === 'eth_getBlockByNumber' && params[0] !== 'pending'))
      number = seen.number;
    if (typeof number === 'string' && /^0x[0-9a-f]+$/i.test(number)) this.noteHead(Number(BigInt(number)));
  }

  /** Answers eth_blockNumber, eth_getBlockByNumber and eth_getBlockByHash when it can; undefined when not cacheable. */
  lookup(method: string, params: unknown[]): CacheLookup | undefined {
    if (this.head === undefined) return undefined;
    if (method === 'eth_blockNumber') return { hit: true, value: `0x${this.head.toString(16)}` };
    if (method !== 'eth_getBlockByNumber' && method !== 'eth_getBlockByHash') return undefined;
    const [id, full] = params as [string, boolean];
    let key: string;
    if (method === 'eth_getBlockByHash') key = `h:${id.toLowerCase()}:${full}`;
    else {
      // "pending" is the node's block under construction: never cached.
      const number =
        id === 'latest'
          ? this.head
          : id === 'earliest'
            ? 0
            : /^0x[0-9a-f]+$/i.test(id)
              ? Number(BigInt(id))
              : undefined;
      if (number === undefined || number > this.head) return undefined;
      key = `n:${number}:${full}`;
    }
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return { hit: true, value: cached.value };
    }
    return { hit: false, store: (result) => this.store(result, full) };
  }

  /** Stores a sealed block under its number and its hash. */
  private store(result: unknown, full: boolean): void {
    const block = result as { number?: Hex; hash?: Hex } | null;
    if (!block?.number || !block.hash) return; // null: unknown block, nothing to keep
    for (const key of [`n:${Number(BigInt(block.number))}:${full}`, `h:${block.hash.toLowerCase()}:${full}`]) {
      this.entries.set(key, { key, value: block });
    }
    while (this.entries.size > this.capacity * 2) this.entries.delete(this.entries.keys().next().value!);
  }
}
