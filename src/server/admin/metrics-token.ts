/**
 * POST /admin/v1/metrics-token (D-280): issues the read-only metrics token of `GET {base_url}/metrics`, replacing
 * the previous one, and answers it once.
 */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { issueMetricsToken } from '../metrics/token.ts';

/** The issue handler. */
export function metricsTokenHandler(db: Database, clock: Clock): Pick<RouteHandlers, 'adminIssueMetricsToken'> {
  return {
    adminIssueMetricsToken: async (_request, reply) => {
      const token = await issueMetricsToken(db);
      // The answer carries a credential: no cache may keep it (RFC 9111).
      return reply
        .header('cache-control', 'no-store')
        .code(200)
        .send({ token, issuedAt: dateOf(clock).toISOString() });
    },
  };
}
