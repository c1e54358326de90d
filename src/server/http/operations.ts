/**
 * Registers a surface's operations from its generated route table: every operation of the contract gets a
 * route and a handler (the full generated `RouteHandlers`, so a missing one does not compile); an operation a
 * server deliberately leaves out answers 501 through {@link notImplementedHandler} (never a silent 404).
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { notImplemented } from './errors.ts';

type RouteTable<Id extends string> = readonly { method: string; url: string; operationId: Id }[];

/**
 * Adds one route per contract operation, using `handlers[operationId]`. D-161: no Fastify `schema:`; the
 * handlers check every request part with the generated zod schemas (guards.ts) for precise 400 texts.
 */
export function registerOperations<Id extends string>(
  app: FastifyInstance,
  routes: RouteTable<Id>,
  handlers: Readonly<Record<Id, unknown>>,
): void {
  for (const route of routes) {
    app.route({
      method: route.method as 'GET',
      url: route.url,
      handler: handlers[route.operationId] as RouteHandlerMethod,
    });
  }
}

/** The handler of an operation of the contract that this server version does not implement: 501 naming it. */
export const notImplementedHandler = (operationId: string) => async (): Promise<never> => {
  throw notImplemented(operationId);
};
