/**
 * The retry policy of surface B (spec "Retry policy"; webhooks.asyncapi.yaml `x-retry-schedule`,
 * `x-delivery`; D-052). Every time is read from the injectable clock (house rule 6), so tests run the
 * 2-hour schedule by moving it.
 */

/**
 * spec: "| 1 | immediate |", "| 2 | 30 seconds |", "| 3 | 5 minutes |", "| 4 | 30 minutes |",
 * "| 5 | 2 hours; final attempt, then the delivery is DEAD |": the delay before attempt n is entry n-1.
 */
export const RETRY_DELAYS_MS = [0, 30_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;

/** spec: "Webhook attempts | 5, then DEAD". */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** spec: "The receiving endpoint must answer with a 2xx status within 10 seconds". */
export const RESPONSE_TIMEOUT_MS = 10_000;

/** The outcome of a finished attempt: the delivery's next state. */
export type NextState = { status: 'delivered' } | { status: 'dead' } | { status: 'pending'; nextAttemptAt: number };

/**
 * After attempt `number` (1-based, within its round) ended at `endedAt` (clock ms): delivered on success;
 * otherwise the next attempt after the table's delay, "measured from the end of the failed attempt" (D-052);
 * DEAD after the fifth failure.
 */
export function afterAttempt(number: number, success: boolean, endedAt: number): NextState {
  if (success) return { status: 'delivered' };
  if (number >= MAX_ATTEMPTS) return { status: 'dead' };
  return { status: 'pending', nextAttemptAt: endedAt + RETRY_DELAYS_MS[number]! };
}
