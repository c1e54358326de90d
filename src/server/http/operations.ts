/**
 * Registers a surface's operations from its generated route table: every operation of the contract gets a
 * route; one without a handler answers 501 saying so (never a silent 404).
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { notImplemented } from './errors.ts';

type RouteTable<Id extends string> = readonly { method: string; url: string; operationId: Id }[];

/** Adds one route per contract operation, using `handlers[operationId]`. */
export function registerOperations<Id extends string>(
  app: FastifyInstance,
  routes: RouteTable<Id>,
  handlers: Partial<Record<Id, unknown>>,
): void {
  for (const route of routes) {
    const handler = handlers[route.operationId] as RouteHandlerMethod | undefined;
    app.route({
      method: route.method as 'GET',
      url: route.url,
      handler:
        handler ??
        (async () => {
          throw notImplemented(route.operationId);
        }),
    });
  }
}
