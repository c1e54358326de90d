/** GET /admin/v1/health (D-064): liveness and readiness of the database and the chain. */
import { sql } from 'drizzle-orm';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Database } from '../../storage/database.ts';

/** The health handler. */
export function healthHandler(
  db: Database,
  chain: ChainRuntime,
  version: string,
): Pick<RouteHandlers, 'adminGetHealth'> {
  return {
    adminGetHealth: async (_request, reply) => {
      const database = await db.execute(sql`select 1`).then(
        () => 'up' as const,
        () => 'down' as const,
      );
      const blockNumber = await chain.upstream.call<string>('eth_blockNumber').then(
        (n) => Number(BigInt(n)),
        () => null,
      );
      const healthy = database === 'up' && blockNumber !== null;
      const body = {
        status: healthy ? ('ok' as const) : ('degraded' as const),
        version,
        chainId: 1111111 as const,
        blockNumber,
        checks: { database, chain: blockNumber === null ? ('down' as const) : ('up' as const) },
      };
      return healthy ? reply.code(200).send(body) : reply.code(503).send(body);
    },
  };
}
