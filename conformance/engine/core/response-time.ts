/**
 * `generated.response_time` (D-232): per operation, the 95th and 99th percentiles of its answer times held to
 * the bounds the run's config gives. It fails with the measured figures, never on one slow sample; an operation
 * with fewer than MIN_SAMPLES answers, or no bound, is skipped with the reason.
 */
import type { CheckTally, ResponseTimeBounds } from './types.ts';

/** Answers an operation needs before its percentiles are judged. */
export const MIN_SAMPLES = 20;

/** The answer times of a run, by surface and operation. */
export class AnswerTimes {
  readonly #times = new Map<string, { surface: string; operation: string; ms: number[] }>();

  /** Records one answer's time on the wire. */
  add(surface: string, operation: string, ms: number): void {
    const key = `${surface}\u0000${operation}`;
    let entry = this.#times.get(key);
    if (!entry) {
      entry = { surface, operation, ms: [] };
      this.#times.set(key, entry);
    }
    entry.ms.push(ms);
  }

  /** Every operation with its times. */
  entries(): { surface: string; operation: string; ms: readonly number[] }[] {
    return [...this.#times.values()];
  }
}

/** The nearest-rank percentile `p` (0 to 100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Tallies `response_time` per operation on each surface's tally. */
export function judgeResponseTimes(
  times: AnswerTimes,
  bounds: ResponseTimeBounds | undefined,
  tallies: Map<string, CheckTally>,
): void {
  for (const { surface, operation, ms } of times.entries()) {
    const tally = tallies.get(`${surface}:response_time`);
    if (!tally) continue;
    const bound = { p95Ms: bounds?.p95Ms, p99Ms: bounds?.p99Ms, ...bounds?.operations?.[operation] };
    const skip = (reason: string) => {
      tally.skipped += 1;
      if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
    };
    if (bound.p95Ms === undefined && bound.p99Ms === undefined) {
      skip('no bound configured: set checks["generated.response_time"].p95Ms (or p99Ms, or per operation) in --config');
      continue;
    }
    if (ms.length < MIN_SAMPLES) {
      skip(
        `fewer than ${MIN_SAMPLES} answers of an operation (e.g. ${operation}: ${ms.length}): too few to judge a percentile`,
      );
      continue;
    }
    const p95 = percentile(ms, 95);
    const p99 = percentile(ms, 99);
    const over = [
      ...(bound.p95Ms !== undefined && p95 > bound.p95Ms ? [`p95 ${Math.round(p95)} ms > ${bound.p95Ms} ms`] : []),
      ...(bound.p99Ms !== undefined && p99 > bound.p99Ms ? [`p99 ${Math.round(p99)} ms > ${bound.p99Ms} ms`] : []),
    ];
    if (over.length === 0) {
      tally.passed += 1;
      continue;
    }
    tally.failed += 1;
    const message = `${operation}: ${over.join(', ')} over ${ms.length} answers (median ${Math.round(percentile(ms, 50))} ms, max ${Math.round(Math.max(...ms))} ms)`;
    tally.failures.push({
      check: 'response_time',
      message,
      case: {
        surface: surface as never,
        operation,
        phase: 'coverage',
        kind: 'positive',
        reason: `${ms.length} answers timed`,
        input: { params: {} },
        method: operation.split(' ')[0] ?? 'POST',
        authenticated: false,
      },
      request: { method: operation.split(' ')[0] ?? 'POST', url: operation, headers: {} },
      response: { status: 0, headers: {}, body: message },
      shrunk: false,
    });
  }
}
