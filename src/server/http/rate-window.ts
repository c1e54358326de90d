/**
 * A per-key fixed-window request counter with weights. D-024 counts a JSON-RPC batch as one request per
 * entry, which @fastify/rate-limit (one hit per HTTP request) cannot express; everywhere else the surfaces
 * use @fastify/rate-limit. In this process, or with REDIS_URL in Redis for every instance (D-169).
 */
import type { Redis } from 'ioredis';

/** The verdict for one request; `unavailable` when the shared counter did not answer (fail closed, D-168). */
export type RateVerdict = { allowed: boolean; retryAfterSeconds: number; remaining: number; unavailable?: boolean };

/** A weighted per-key counter. */
export interface RateCounter {
  /** Units allowed per window; 0 turns the limiter off. */
  readonly limit: number;
  /** Counts `weight` units for `key`. */
  take(key: string, weight?: number): Promise<RateVerdict>;
}

/** Allows `limit` units per `windowMs` per key, in this process. */
export class RateWindow implements RateCounter {
  private readonly windows = new Map<string, { start: number; used: number }>();

  /** `limit` 0 turns the limiter off. */
  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts `weight` units for `key`. */
  async take(key: string, weight = 1): Promise<RateVerdict> {
    if (this.limit === 0) return { allowed: true, retryAfterSeconds: 0, remaining: Infinity };
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, used: 0 };
      this.windows.set(key, window);
      if (this.windows.size > 10_000) this.forgetExpired(now);
    }
    window.used += weight;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    return { allowed: window.used <= this.limit, retryAfterSeconds, remaining: Math.max(0, this.limit - window.used) };
  }

  private forgetExpired(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}

/** The key prefix of the shared JSON-RPC counters in Redis. */
export const RPC_RATE_KEY_PREFIX = 'svckit:rpc-rate:';

// One round trip: add the weight, start the window's expiry on its first unit, read what is left of it.
const TAKE_SCRIPT = `local used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {used, redis.call('PTTL', KEYS[1])}`;

/** Allows `limit` units per `windowMs` per key across every instance that shares `redis` (D-169). */
export class RedisRateWindow implements RateCounter {
  /** `limit` 0 turns the limiter off. */
  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly redis: Redis,
  ) {}

  /** See {@link RateCounter.take}. */
  async take(key: string, weight = 1): Promise<RateVerdict> {
    if (this.limit === 0) return { allowed: true, retryAfterSeconds: 0, remaining: Infinity };
    let used: number;
    let ttl: number;
    try {
      const answer = (await this.redis.eval(TAKE_SCRIPT, 1, `${RPC_RATE_KEY_PREFIX}${key}`, weight, this.windowMs)) as [
        number,
        number,
      ];
      [used, ttl] = answer;
    } catch {
      return { allowed: false, retryAfterSeconds: 1, remaining: 0, unavailable: true };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((ttl > 0 ? ttl : this.windowMs) / 1000));
    return { allowed: used <= this.limit, retryAfterSeconds, remaining: Math.max(0, this.limit - used) };
  }
}
