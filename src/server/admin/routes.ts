/**
 * The administrator console plugin, `{base_url}/admin/v1` (D-048): every operation of
 * specs/admin.openapi.yaml, behind the admin token except GET /health.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { routes } from '../../../generated/admin/routes.gen';
import type { ChainRuntime } from '../../chain/runtime.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../storage/database.ts';
import type { LedgerRuntime } from '../../ledger/runtime.ts';
import { registerOperations } from '../http/operations.ts';
import { accountHandlers } from './accounts.ts';
import { requireAdmin } from './auth.ts';
import { credentialHandlers } from './credentials.ts';
import { healthHandler } from './health.ts';
import { qbftHandlers } from './qbft.ts';

/** What the console needs. */
export type AdminDeps = { db: Database; chain: ChainRuntime; ledger: LedgerRuntime; clock: Clock; version: string };

/** Registers the console's routes (mount with prefix /admin/v1). */
export async function adminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url !== '/admin/v1/health') await requireAdmin(request, deps.db);
  });
  const handlers: Partial<RouteHandlers> = {
    ...healthHandler(deps.db, deps.chain, deps.version),
    ...qbftHandlers(deps.chain, deps.clock),
    ...credentialHandlers(deps.ledger.credentials, deps.ledger.accounts),
    ...accountHandlers(deps),
  };
  registerOperations(app, routes, handlers);
}
