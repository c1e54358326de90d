/**
 * GET /livez and GET /readyz on every origin (D-262): unauthenticated, not rate-limited, cheap and bounded; the
 * probes of one origin share one round of checks per PROBE_SHARE_MS.
 * /livez answers 200 while the process serves; /readyz runs each readiness check under PROBE_TIMEOUT_MS and answers
 * 200, or 503 in the {error, code} shape naming the failing parts (names only, never a cause, D-262).
 */
import type { FastifyInstance } from 'fastify';

/** D-262: the longest one readiness check may take before it counts as failed. */
export const PROBE_TIMEOUT_MS = 2000;

/** A named readiness check: resolves when the part is usable, rejects (or exceeds the time-out) when it is not. */
export type ReadinessCheck = { name: string; check: () => Promise<unknown> };

/** Resolves true when `work` ends within `ms`, false when it fails or takes longer (it is not awaited further). */
export function within(ms: number, work: () => Promise<unknown>): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    Promise.resolve()
      .then(work)
      .then(
        () => resolve(true),
        () => resolve(false),
      )
      .finally(() => clearTimeout(timer));
  });
}

/** Runs every check in parallel; the names of those that failed or timed out, in the order given. */
export async function failingParts(checks: readonly ReadinessCheck[], timeoutMs = PROBE_TIMEOUT_MS): Promise<string[]> {
  const results = await Promise.all(checks.map((c) => within(timeoutMs, c.check)));
  return checks.filter((_, i) => !results[i]).map((c) => c.name);
}

/** D-262: probes within this long of a round of checks share its result, whatever their number. */
export const PROBE_SHARE_MS = 500;

/**
 * The failing parts, from one round of checks shared by every probe that asks while it runs or within
 * `shareMs` after it started: an anonymous client's probes cost at most two rounds a second per origin.
 */
export function sharedReadiness(
  checks: readonly ReadinessCheck[],
  shareMs = PROBE_SHARE_MS,
  now: () => number = Date.now,
): () => Promise<string[]> {
  let last: { at: number; result: Promise<string[]> } | undefined;
  return () => {
    if (!last || now() - last.at >= shareMs) last = { at: now(), result: failingParts(checks) };
    return last.result;
  };
}

/**
 * Adds GET /livez and GET /readyz to `app` (D-262). D-264: while `stopping.draining` holds, /readyz answers 503
 * at once, without a round of checks.
 */
export function installProbes(
  app: FastifyInstance,
  checks: readonly ReadinessCheck[],
  stopping?: { readonly draining: boolean },
): void {
  const readiness = sharedReadiness(checks);
  app.get('/livez', async (_request, reply) => reply.code(200).send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (stopping?.draining)
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .send({ error: 'not ready: the instance is shutting down', code: 'NOT_READY' });
    const failing = await readiness();
    if (failing.length === 0) return reply.code(200).send({ status: 'ok' });
    return reply
      .code(503)
      .header('cache-control', 'no-store')
      .send({ error: `not ready: ${failing.join(', ')} unavailable`, code: 'NOT_READY' });
  });
}
