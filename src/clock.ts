/**
 * The one injectable clock (house rule 6): webhook schedules, signature clock skew, challenge expiry and
 * caches all read it, so tests can move time instead of waiting.
 */

/** Milliseconds since the Unix epoch. */
export type Clock = { now(): number };

/** The clock's reading as a Date (timestamp columns, ISO 8601 texts). */
export const dateOf = (clock: Clock): Date => new Date(clock.now());

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  /** Starts at `start` (ms since the epoch); plain fields, so Node's type stripping loads this file (D-162). */
  constructor(start: number = Date.UTC(2026, 10, 21, 9, 30)) {
    this.current = start;
  }
  /** The current time. */
  now(): number {
    return this.current;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
  /** Sets the time. */
  set(ms: number): void {
    this.current = ms;
  }
}

/** The real clock shifted by an offset tests can move (times stay realistic, e.g. for TLS and signatures). */
export class OffsetClock implements Clock {
  private offset = 0;
  /** Current time: the system time plus the offset. */
  now(): number {
    return Date.now() + this.offset;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.offset += ms;
  }
}
