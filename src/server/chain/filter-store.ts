/**
 * D-256: where the filters live. In process for one instance; in Redis with REDIS_URL (D-168), so that every
 * instance behind one address answers every filter id. Expiry is read on the injectable clock (the times are
 * stored in the state and in the indexes' scores); Redis's own key expiry only collects what nobody polls.
 */
import type { Redis } from 'ioredis';
import { JsonRpcFailure } from './errors.ts';
import type { FilterLimits, FilterState, FilterStore } from './filters.ts';

/** Filters of one process. */
export class MemoryFilterStore implements FilterStore {
  private readonly filters = new Map<string, FilterState>();

  /** See {@link FilterStore.add}. */
  async add(id: string, state: FilterState, limits: FilterLimits, now: number): Promise<'added' | 'client' | 'total'> {
    let ofClient = 0;
    for (const [key, filter] of this.filters) {
      if (filter.expiresAt <= now) this.filters.delete(key);
      else if (filter.client === state.client) ofClient += 1;
    }
    if (ofClient >= limits.perClient) return 'client';
    if (this.filters.size >= limits.total) return 'total';
    this.filters.set(id, state);
    return 'added';
  }

  /** See {@link FilterStore.get}. */
  async get(id: string, now: number): Promise<FilterState | undefined> {
    const state = this.filters.get(id);
    if (state && state.expiresAt <= now) this.filters.delete(id);
    return state && state.expiresAt > now ? state : undefined;
  }

  /** See {@link FilterStore.replace}. */
  async replace(id: string, version: number, next: FilterState): Promise<boolean> {
    if (this.filters.get(id)?.version !== version) return false;
    this.filters.set(id, next);
    return true;
  }

  /** See {@link FilterStore.remove}. */
  async remove(id: string, now: number): Promise<boolean> {
    const state = this.filters.get(id);
    this.filters.delete(id);
    return state !== undefined && state.expiresAt > now;
  }
}

/** The key prefix of the shared filters in Redis. */
export const FILTER_KEY_PREFIX = 'svckit:filter:';
const ALL = `${FILTER_KEY_PREFIX}all`;
const byClient = (client: string) => `${FILTER_KEY_PREFIX}client:${client}`;
const stateKey = (id: string) => `${FILTER_KEY_PREFIX}id:${id}`;

// KEYS: all, client index, state. ARGV: now, perClient, total, id, state JSON, expiresAt, key TTL in ms.
// Drops expired ids from both indexes, then adds the filter if neither bound is reached.
const ADD_SCRIPT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'client' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'total' end
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[7])
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 'added'`;

// KEYS: state, all, client index. ARGV: expected version, new state JSON, expiresAt, id, key TTL in ms.
const REPLACE_SCRIPT = `local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], 'XX', ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return 1`;

/** Filters shared by every instance on one Redis (D-168). A Redis failure answers -32002 Resource unavailable. */
export class RedisFilterStore implements FilterStore {
  /** On the shared state's command client. */
  constructor(
    private readonly redis: Redis,
    private readonly idleMs: number,
  ) {}

  /** Keys outlive the idle time a little, so the clock, not Redis, decides expiry. */
  private get ttl(): number {
    return this.idleMs + 60_000;
  }

  /** See {@link FilterStore.add}. */
  async add(id: string, state: FilterState, limits: FilterLimits, now: number): Promise<'added' | 'client' | 'total'> {
    return (await this.shared(() =>
      this.redis.eval(
        ADD_SCRIPT,
        3,
        ALL,
        byClient(state.client),
        stateKey(id),
        now,
        limits.perClient,
        limits.total,
        id,
        JSON.stringify(state),
        state.expiresAt,
        this.ttl,
      ),
    )) as 'added' | 'client' | 'total';
  }

  /** See {@link FilterStore.get}. */
  async get(id: string, now: number): Promise<FilterState | undefined> {
    const text = (await this.shared(() => this.redis.get(stateKey(id)))) as string | null;
    const state = text ? (JSON.parse(text) as FilterState) : undefined;
    return state && state.expiresAt > now ? state : undefined;
  }

  /** See {@link FilterStore.replace}. */
  async replace(id: string, version: number, next: FilterState): Promise<boolean> {
    const done = await this.shared(() =>
      this.redis.eval(
        REPLACE_SCRIPT,
        3,
        stateKey(id),
        ALL,
        byClient(next.client),
        version,
        JSON.stringify(next),
        next.expiresAt,
        id,
        this.ttl,
      ),
    );
    return done === 1;
  }

  /** See {@link FilterStore.remove}. */
  async remove(id: string, now: number): Promise<boolean> {
    const state = await this.get(id, now);
    const text = (await this.shared(() => this.redis.getdel(stateKey(id)))) as string | null;
    if (!text) return false;
    const removed = JSON.parse(text) as FilterState;
    await this.shared(() => this.redis.multi().zrem(ALL, id).zrem(byClient(removed.client), id).exec());
    return state !== undefined;
  }

  private async shared<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch {
      // D-168: fail closed; the text names no address (the URL may carry a password).
      throw new JsonRpcFailure('ResourceUnavailable', 'the shared filter store does not answer; try again later');
    }
  }
}
