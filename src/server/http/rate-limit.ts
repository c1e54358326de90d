/**
 * Per-IP rate limits of the REST surfaces through @fastify/rate-limit (spec: "429 | rate limit exceeded (10
 * requests per second per IP)"; D-022: Retry-After and x-ratelimit-* headers, the {error} body; D-024, D-058).
 * Limits are per process; several instances need the plugin's shared store (e.g. Redis), as documented in
 * the README.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ErrorCode, RestError } from './errors.ts';

/** Limits every route of `app`'s scope to `requestsPerSecond` per client IP; 0 leaves it unlimited. */
export async function limitRequests(app: FastifyInstance, requestsPerSecond: number): Promise<void> {
  if (requestsPerSecond <= 0) return;
  await app.register(rateLimit, {
    max: requestsPerSecond,
    timeWindow: 1000,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new RestError(
        ErrorCode.RATE_LIMITED,
        `rate limit exceeded: ${context.max} requests per second per IP; retry in ${seconds} s`,
        {
          headers: { 'retry-after': String(seconds) },
        },
      );
    },
  });
}
