/**
 * A one-value cache that reads the injectable clock (house rule 6), so tests move time instead of waiting.
 * Concurrent misses share one load; a failed load is not kept.
 */
import type { Clock } from '@svckit/sdk/clock';

/** Holds one value for `ttlMs` milliseconds of clock time. */
export class TtlCache<T> {
  private entry: { at: number; value: Promise<T> } | undefined;

  /** Keeps a loaded value while less than `ttlMs` of `clock` time has passed. */
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** The cached value, or a fresh one from `load` when the window has passed (or the clock went back). */
  get(load: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const current = this.entry;
    if (current && now >= current.at && now - current.at < this.ttlMs) return current.value;
    const entry = { at: now, value: load() };
    this.entry = entry;
    entry.value.catch(() => {
      if (this.entry === entry) this.entry = undefined;
    });
    return entry.value;
  }
}
