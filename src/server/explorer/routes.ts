/** The explorer REST API plugin, `{base_url}/api` (surface D). */
import type { FastifyInstance } from 'fastify';
import { routes } from '../../../generated/explorer/routes.gen';
import type { ChainRuntime } from '../../chain/runtime.ts';
import type { Clock } from '../../clock.ts';
import { registerOperations } from '../http/operations.ts';
import type { RpcDispatcher } from '../rpc/dispatcher.ts';

/** What the explorer reads: the gateway's dispatcher (JSON-RPC, batched) and the QBFT metadata. */
export type ExplorerDeps = { dispatcher: RpcDispatcher; chain: ChainRuntime; clock: Clock };

/** Registers the explorer's eight GET endpoints (mount with prefix /api). */
export async function explorerRoutes(app: FastifyInstance, _deps: ExplorerDeps): Promise<void> {
  registerOperations(app, routes, {});
}
