/**
 * The administrator console plugin, `{base_url}/admin/v1` (D-048): every operation of
 * specs/admin.openapi.yaml, behind the admin token except GET /health.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { routes } from '../../../generated/admin/routes.gen';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import type { LedgerRuntime } from '../../ledger/runtime.ts';
import type { WebhookRuntime } from '../../webhooks/runtime.ts';
import { registerOperations } from '../http/operations.ts';
import { limitRequests } from '../http/rate-limit.ts';
import { accountHandlers } from './accounts.ts';
import { adminTokenHandler } from './admin-token.ts';
import { chainAccountHandlers } from './chain-accounts.ts';
import { requireAdmin } from './auth.ts';
import { credentialHandlers } from './credentials.ts';
import { Faucet } from './funding.ts';
import { healthHandler } from './health.ts';
import { metricsTokenHandler } from './metrics-token.ts';
import { paymentHandlers } from './payments.ts';
import { qbftHandlers } from './qbft.ts';
import { evidenceHandler } from './evidence.ts';
import { walletKeyHandlers } from './wallet-keys.ts';
import { webhookHandlers } from './webhooks.ts';

/** What the console needs. */
export type AdminDeps = {
  db: Database;
  chain: ChainRuntime;
  ledger: LedgerRuntime;
  webhooks: WebhookRuntime;
  clock: Clock;
  version: string;
  requestsPerSecond: number;
  /** SVC_WALLET_KEY_GRACE_S in milliseconds: how long a rotated wallet key keeps verifying (D-215). */
  walletKeyGraceMs: number;
  /** The folder the site origin serves the evidence document from (D-153, D-275). */
  evidenceDir: string;
};

/** Registers the console's routes (mount with prefix /admin/v1). */
export async function adminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  // D-058: 10 requests per second per IP, as surface A.
  await limitRequests(app, deps.requestsPerSecond);
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url !== '/admin/v1/health') await requireAdmin(request, deps.db);
  });
  // D-151: one faucet for account and address funding, so the funding account's nonces never collide.
  const faucet = new Faucet(deps.db, deps.chain, deps.clock);
  const handlers: RouteHandlers = {
    ...healthHandler(deps.db, deps.chain, deps.version),
    ...qbftHandlers(deps.chain, deps.clock),
    ...credentialHandlers(deps.ledger.credentials, deps.ledger.accounts),
    ...accountHandlers({ ...deps, faucet }),
    ...chainAccountHandlers({ chain: deps.chain, accounts: deps.ledger.accounts, faucet }),
    ...webhookHandlers(deps.webhooks, deps.clock),
    ...paymentHandlers(deps.ledger.payments),
    ...walletKeyHandlers({
      db: deps.db,
      keyring: deps.ledger.keyring,
      clock: deps.clock,
      graceMs: deps.walletKeyGraceMs,
    }),
    ...adminTokenHandler(deps.db, deps.clock),
    ...evidenceHandler(deps.evidenceDir, deps.clock),
    ...metricsTokenHandler(deps.db, deps.clock),
  };
  registerOperations(app, routes, handlers);
}
