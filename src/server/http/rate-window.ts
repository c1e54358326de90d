/**
 * A per-key fixed-window request counter with weights. D-024 counts a JSON-RPC batch as one request per
 * entry, which @fastify/rate-limit (one hit per HTTP request) cannot express; everywhere else the surfaces
 * use @fastify/rate-limit.
 */

/** The verdict for one request. */
export type RateVerdict = { allowed: boolean; retryAfterSeconds: number; remaining: number };

/** Allows `limit` units per `windowMs` per key. */
export class RateWindow {
  private readonly windows = new Map<string, { start: number; used: number }>();

  /** `limit` 0 turns the limiter off. */
  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts `weight` units for `key`. */
  take(key: string, weight = 1): RateVerdict {
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
