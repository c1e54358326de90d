/**
 * `GET {base_url}/metrics` (D-276): the Prometheus text format of this instance's registry, behind a bearer
 * credential (D-280): the admin token, or the read-only metrics token the administrator issues for the scraper.
 * Anything else is 401 in the `{error, code}` shape; limited per IP like the admin API (D-058).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../storage/database.ts';
import { isAdminToken } from '../../storage/settings.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { limitRequests } from '../http/rate-limit.ts';
import type { StackMetrics } from './registry.ts';
import { isMetricsToken } from './token.ts';

/** What the route needs. */
export type MetricsRouteOptions = {
  metrics: StackMetrics;
  db: Database;
  /** Reads the scrape-time gauges (collect.ts). */
  collect: () => Promise<void>;
  requestsPerSecond: number;
};

/** D-280: throws 401 unless the request carries the admin token or the metrics token. */
async function requireReader(request: FastifyRequest, db: Database): Promise<void> {
  const header = request.headers.authorization;
  if (!header)
    throw new RestError(
      ErrorCode.UNAUTHENTICATED,
      'missing Authorization header: expected "Bearer svcmet_<token>" (the metrics token) or the admin token',
    );
  const match = /^Bearer (svc(adm|met)_[A-Za-z0-9_-]{43})$/.exec(header);
  const valid = match && (match[2] === 'adm' ? isAdminToken(db, match[1]!) : isMetricsToken(db, match[1]!));
  if (!valid || !(await valid))
    throw new RestError(ErrorCode.UNAUTHENTICATED, 'invalid metrics or administrator token');
}

/** Registers GET /metrics (mount on the base origin, in its own scope for its rate limit). */
export async function metricsRoute(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  await limitRequests(app, options.requestsPerSecond);
  app.get('/metrics', async (request, reply) => {
    await requireReader(request, options.db);
    await options.collect();
    const text = await options.metrics.registry.metrics();
    return reply
      .header('content-type', options.metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });
}
