/**
 * D-256: the polled filters of execution-apis (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
 * eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter), kept by the gateway rather than the node. A filter
 * is a cursor (the last block it reported) and its criteria, so its state is small and the same on every
 * instance: in Redis with REDIS_URL (D-168), in process otherwise (filter-store.ts). Bounded: per client IP and in
 * total, an idle filter expires (read on the injectable clock), and a poll reads at most `blocksPerPoll` blocks.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '@svckit/sdk/clock';
import { type RpcResponse, UpstreamRpcError } from '../../node/upstream.ts';
import type { ChainReader } from './chain-reader.ts';
import { JsonRpcFailure } from './errors.ts';

/** The D-256 bounds. */
export type FilterLimits = {
  /** Filters one client IP may hold. */
  perClient: number;
  /** Filters the gateway (every instance sharing a store) may hold. */
  total: number;
  /** A filter not polled for this long is removed (Besu: 10 minutes). */
  idleMs: number;
  /** Blocks one eth_getFilterChanges reads at most; the rest come on the next poll. */
  blocksPerPoll: number;
};

/** D-256: the defaults, as `x-filters` in chain.openrpc.json states them. */
export const FILTER_LIMITS: FilterLimits = { perClient: 64, total: 10_000, idleMs: 600_000, blocksPerPoll: 1024 };

/** A log filter's criteria, as eth_getLogs takes them (params.ts has made the block members canonical). */
export type LogCriteria = {
  fromBlock?: string;
  toBlock?: string;
  blockHash?: string;
  address?: string | string[];
  topics?: unknown[];
};

/** One filter's state. `cursor`: the newest block it has reported (or that existed when it was made). */
export type FilterState = {
  kind: 'log' | 'block' | 'pending';
  client: string;
  cursor: number;
  criteria?: LogCriteria;
  /** Pending filters: the pooled transactions reported at the last poll, not to be reported again. */
  seen?: string[];
  expiresAt: number;
  /** Bumped on every change, so two instances polling one filter at once cannot both report the same changes. */
  version: number;
};

/** Where filters live (filter-store.ts: in process, or Redis). */
export interface FilterStore {
  /** Adds `state` under `id` unless the client or the total holds the limit already; expired filters do not count. */
  add(id: string, state: FilterState, limits: FilterLimits, now: number): Promise<'added' | 'client' | 'total'>;
  /** The filter, or undefined when unknown or expired at `now`. */
  get(id: string, now: number): Promise<FilterState | undefined>;
  /** Replaces the filter if its version is still `version`; false when another poll changed it first. */
  replace(id: string, version: number, next: FilterState): Promise<boolean>;
  /** Removes the filter; false when it was unknown (or had expired). */
  remove(id: string, now: number): Promise<boolean>;
}

/** How the filters read the chain: blocks and the pool through {@link ChainReader}, logs as eth_getLogs answers. */
export type FilterChain = { reader: ChainReader; getLogs(filter: LogCriteria): Promise<RpcResponse> };

const hex = (n: number) => `0x${n.toString(16)}`;

/** The canonical form of a filter id: a QUANTITY in lower case without leading zeros. */
export const canonicalFilterId = (id: string): string => `0x${BigInt(id).toString(16)}`;

/** The filter methods of the dispatcher. */
export class Filters {
  /** Filters in `store`, reading `chain`, timed by `clock`, within `limits`. */
  constructor(
    private readonly store: FilterStore,
    private readonly chain: FilterChain,
    private readonly clock: Clock,
    private readonly limits: FilterLimits = FILTER_LIMITS,
  ) {}

  /** Answers one filter method for `client` (the sender's IP), its params validated by the contract. */
  async call(method: string, params: unknown[], client: string): Promise<unknown> {
    switch (method) {
      case 'eth_newFilter':
        return this.install({ kind: 'log', criteria: params[0] as LogCriteria }, client);
      case 'eth_newBlockFilter':
        return this.install({ kind: 'block' }, client);
      case 'eth_newPendingTransactionFilter':
        return this.install({ kind: 'pending', seen: [] }, client);
      case 'eth_getFilterChanges':
        return this.changes(canonicalFilterId(params[0] as string));
      case 'eth_getFilterLogs':
        return this.logs(canonicalFilterId(params[0] as string));
      case 'eth_uninstallFilter':
        return this.store.remove(canonicalFilterId(params[0] as string), this.clock.now());
      default:
        throw new Error(`${method} is not a filter method`);
    }
  }

  private async install(made: Pick<FilterState, 'kind' | 'criteria' | 'seen'>, client: string): Promise<string> {
    // 16 random bytes as a QUANTITY, as Besu's FilterIdGenerator makes them.
    const id = canonicalFilterId(`0x${randomBytes(16).toString('hex')}`);
    const now = this.clock.now();
    const state: FilterState = {
      ...made,
      client,
      cursor: await this.chain.reader.head(),
      expiresAt: now + this.limits.idleMs,
      version: 0,
    };
    const added = await this.store.add(id, state, this.limits, now);
    if (added === 'client')
      throw new JsonRpcFailure(
        'LimitExceeded',
        `a client IP holds at most ${this.limits.perClient} filters; uninstall one (eth_uninstallFilter) or let one expire (${this.limits.idleMs / 60_000} minutes without a poll)`,
      );
    if (added === 'total')
      throw new JsonRpcFailure('LimitExceeded', `the gateway holds ${this.limits.total} filters; try again later`);
    return id;
  }

  /** What the filter saw since its previous poll; a second concurrent poll of one filter gets the rest, or []. */
  private async changes(id: string): Promise<unknown[]> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const state = await this.found(id);
      const head = await this.chain.reader.head();
      const upTo = Math.min(head, state.cursor + this.limits.blocksPerPoll);
      const { changes, seen } = await this.read(state, upTo);
      const next: FilterState = {
        ...state,
        cursor: Math.max(state.cursor, upTo),
        ...(seen ? { seen } : {}),
        expiresAt: this.clock.now() + this.limits.idleMs,
        version: state.version + 1,
      };
      if (await this.store.replace(id, state.version, next)) return changes;
    }
    return [];
  }

  /** The changes of `state` in blocks (cursor, upTo], and for a pending filter the pool's new transactions. */
  private async read(state: FilterState, upTo: number): Promise<{ changes: unknown[]; seen?: string[] }> {
    const from = state.cursor + 1;
    if (state.kind === 'block')
      return { changes: upTo < from ? [] : (await this.chain.reader.blocks(from, upTo)).map((b) => b.hash) };
    if (state.kind === 'pending') {
      const mined = upTo < from ? [] : (await this.chain.reader.blocks(from, upTo)).flatMap((b) => b.transactions);
      const pooled = await this.chain.reader.pooled();
      const before = new Set(state.seen ?? []);
      const changes = [...new Set([...mined.map((h) => h.toLowerCase()), ...pooled])].filter((h) => !before.has(h));
      return { changes, seen: pooled };
    }
    const criteria = state.criteria ?? {};
    // A blockHash filter names a block that existed when it was made: nothing new ever arrives.
    if (criteria.blockHash !== undefined) return { changes: [] };
    const lowest = blockNumber(criteria.fromBlock);
    const highest = blockNumber(criteria.toBlock);
    const start = Math.max(from, lowest ?? 0);
    const end = Math.min(upTo, highest ?? upTo);
    if (end < start) return { changes: [] };
    const answer = await this.chain.getLogs({ ...criteria, fromBlock: hex(start), toBlock: hex(end) });
    if (answer.error) throw new UpstreamRpcError(answer.error);
    return { changes: answer.result as unknown[] };
  }

  /** Every log a log filter's criteria match, as eth_getLogs answers them; the poll keeps the filter alive. */
  private async logs(id: string): Promise<unknown> {
    const state = await this.found(id);
    if (state.kind !== 'log') throw new JsonRpcFailure('FilterNotFound', `${id} is not a log filter`);
    await this.store.replace(id, state.version, {
      ...state,
      expiresAt: this.clock.now() + this.limits.idleMs,
      version: state.version + 1,
    });
    const answer = await this.chain.getLogs(state.criteria ?? {});
    if (answer.error) throw new UpstreamRpcError(answer.error);
    return answer.result;
  }

  private async found(id: string): Promise<FilterState> {
    const state = await this.store.get(id, this.clock.now());
    if (!state) throw new JsonRpcFailure('FilterNotFound', `no filter ${id} (unknown, uninstalled, or expired)`);
    return state;
  }
}

/** The block number a canonical block member names; undefined for a tag (`latest`, `pending`: the cursor decides). */
function blockNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === 'latest' || value === 'pending') return undefined;
  if (value === 'earliest') return 0;
  return Number(BigInt(value));
}
