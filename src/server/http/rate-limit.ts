/**
 * Per-IP rate limits of the REST surfaces through @fastify/rate-limit (spec: "429 | rate limit exceeded (10
 * requests per second per IP)"; D-022: Retry-After and x-ratelimit-* headers, the {error} body; D-024, D-058).
 * Limits are per process unless the origin shares them through Redis (REDIS_URL, D-169): every instance then
 * counts in the same Redis key per limit and client IP, with the plugin's own Redis store.
 */
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import { ErrorCode, RestError } from './errors.ts';

/** The plugin's Redis store (the script it runs: INCR, then PEXPIRE on the first hit of a window). */
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean | undefined,
  exponentialBackoff: boolean | undefined,
  redis: Redis,
  nameSpace: string,
) => FastifyRateLimitStore;

/** The Redis counters of one origin, and how many limits it registered so far (each gets its own name). */
type SharedCounters = { redis: Redis; origin: string; registered: number };

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on an origin by {@link shareRateLimits}; its plugin scopes inherit it. */
    sharedRateLimits?: SharedCounters;
  }
}

/** The key prefix of every shared rate-limit counter. */
export const RATE_LIMIT_KEY_PREFIX = 'svckit:rate:';

/**
 * Makes every limit `app` (an origin, before its surfaces are registered) and its scopes register count in
 * `redis` (D-169). `origin` names the origin in the keys, so equal paths on two origins never share a counter.
 */
export function shareRateLimits(app: FastifyInstance, redis: Redis, origin: string): void {
  app.decorate('sharedRateLimits', { redis, origin, registered: 0 });
}

/**
 * The Redis name space of the next limit of `app`'s origin: origin, scope prefix and registration order. The
 * order is the same in every instance of one version (a lifted limit keeps its number), so instances agree
 * on the name of each limit.
 */
function nameSpaceOf(app: FastifyInstance, shared: SharedCounters): string {
  shared.registered += 1;
  return `${RATE_LIMIT_KEY_PREFIX}${shared.origin}${app.prefix}#${shared.registered}:`;
}

/**
 * A store whose Redis failure is the surface's 503 (D-169: fail closed) instead of an unhandled error; counting
 * is the plugin's Redis store's.
 */
class SharedRateStore implements FastifyRateLimitStore {
  constructor(private readonly inner: FastifyRateLimitStore) {}

  incr(...[key, callback, timeWindow, max]: Parameters<FastifyRateLimitStore['incr']>): void {
    this.inner.incr(
      key,
      (error, result) =>
        error
          ? callback(
              new RestError(ErrorCode.UNAVAILABLE, 'the shared rate-limit store does not answer; try again later'),
            )
          : callback(null, result),
      timeWindow,
      max,
    );
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    return new SharedRateStore(this.inner.child(routeOptions));
  }
}

/** The store constructor the plugin instantiates for one limit counted in `redis` under `nameSpace`. */
function sharedStore(redis: Redis, nameSpace: string) {
  return class extends SharedRateStore {
    constructor() {
      // A fixed window, as in process: neither continueExceeding nor exponentialBackoff is set by these limits.
      super(new RedisStore(false, false, redis, nameSpace));
    }
  };
}

/** Limits every route of `app`'s scope to `requestsPerSecond` per client IP; 0 leaves it unlimited. */
export async function limitRequests(app: FastifyInstance, requestsPerSecond: number): Promise<void> {
  const shared = app.sharedRateLimits;
  // Named before the check below, so a limit lifted on one instance does not renumber the others (D-169).
  const nameSpace = shared && nameSpaceOf(app, shared);
  if (requestsPerSecond <= 0) return;
  await app.register(rateLimit, {
    max: requestsPerSecond,
    timeWindow: 1000,
    ...(shared && nameSpace ? { store: sharedStore(shared.redis, nameSpace) } : {}),
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
