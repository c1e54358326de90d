// House rule 6: one injectable clock, so reports and durations are deterministic in tests.

/** A source of the current time, in milliseconds since the Unix epoch. */
export interface Clock {
  /** Current time in milliseconds since the Unix epoch. */
  now(): number;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
