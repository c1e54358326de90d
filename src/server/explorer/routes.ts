/**
 * The explorer REST API plugin, `{base_url}/api` (surface D): spec: "All endpoints are GET under
 * {base_url}/api and return JSON." Public and read-only (D-017); errors are `{error, code}` (D-023).
 */
import type { FastifyInstance } from 'fastify';
import type { RouteHandlers } from '../../../generated/explorer/fastify.gen';
import { routes } from '../../../generated/explorer/routes.gen';
import { registerOperations } from '../http/operations.ts';
import { limitRequests } from '../http/rate-limit.ts';
import { parseAddress, parseBlockId, parseTxHash } from './params.ts';
import { ExplorerService, type ExplorerDeps } from './service.ts';

/** The handlers of the eight operations, typed by the generated RouteHandlers. */
export function explorerHandlers(service: ExplorerService): RouteHandlers {
  return {
    explorerGetStats: async (_request, reply) => reply.code(200).send(await service.stats()),
    explorerListBlocks: async (_request, reply) => reply.code(200).send(await service.recentBlocks()),
    explorerGetBlock: async (request, reply) => reply.code(200).send(await service.block(parseBlockId(request.params))),
    explorerListTransactions: async (_request, reply) => reply.code(200).send(await service.recentTransactions()),
    explorerGetTransaction: async (request, reply) =>
      reply.code(200).send(await service.transaction(parseTxHash(request.params))),
    explorerGetAddressBalance: async (request, reply) =>
      reply.code(200).send(await service.balance(parseAddress(request.params))),
    explorerGetValidators: async (_request, reply) => reply.code(200).send(await service.validators()),
    explorerGetGovernance: async (_request, reply) => reply.code(200).send(await service.governance()),
  };
}

/** Registers the explorer's eight GET endpoints (mount with prefix /api). */
export async function explorerRoutes(
  app: FastifyInstance,
  deps: ExplorerDeps & { requestsPerSecond: number },
): Promise<void> {
  // D-024: 50 requests per second per IP by default.
  await limitRequests(app, deps.requestsPerSecond);
  const service = new ExplorerService(deps);
  // Sealed blocks keep the head hint exact, so a cold /txns is one batch to the node.
  deps.chain.producer?.on('sealed', (block) => service.reader.noteHead(block.number));
  await service.reader.head().catch(() => undefined);
  registerOperations(app, routes, explorerHandlers(service));
}
