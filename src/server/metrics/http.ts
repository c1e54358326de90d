/**
 * Per-request HTTP metrics of one origin (D-278): the route template (Fastify's `routeOptions.url`, never the
 * raw path; `unmatched` when no route matched), the method (a fixed set, else `other`) and the status, with the
 * duration in a histogram; a 429 also counts as a rate-limit refusal of its surface (D-277). Cheap on the /rpc
 * path: one onResponse hook, the labelled child found through nested maps, then prom-client's observe.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HTTP_METHODS, OTHER, UNMATCHED, type OriginName, type StackMetrics, type Surface } from './registry.ts';

type Child = { observe(value: number): void };

/** D-277: the surface of a route of `origin` (the base origin carries several). */
export function surfaceOf(origin: OriginName, route: string): Surface {
  if (origin !== 'base') return origin;
  if (route === '/rpc') return 'rpc';
  if (route === '/ws') return 'ws';
  if (route === '/metrics') return 'metrics';
  if (route.startsWith('/api/') || route === '/api') return 'explorer';
  if (route.startsWith('/docs')) return 'docs';
  if (route.startsWith('/wallet/api/v1')) return 'institutional';
  if (route.startsWith('/admin/v1')) return 'admin';
  return OTHER;
}

/** Adds the HTTP metrics to `app`; call before its routes are registered, so every template is recorded. */
export function instrumentOrigin(app: FastifyInstance, metrics: StackMetrics, origin: OriginName): void {
  const known = new Set<string>();
  metrics.routes.set(origin, known);
  app.addHook('onRoute', (route) => {
    known.add(route.url);
  });
  const children = new Map<string, Map<string, Map<number, Child>>>();
  const refusals = new Map<string, { inc(): void }>();
  const childOf = (route: string, method: string, status: number): Child => {
    let byMethod = children.get(route);
    if (!byMethod) {
      byMethod = new Map();
      children.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let child = byStatus.get(status);
    if (!child) {
      child = metrics.http.labels(origin, route, method, String(status));
      byStatus.set(status, child);
    }
    return child;
  };
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // D-278: a template only when it is one this origin registered (a 404 has none).
    const url = request.routeOptions.url;
    const route = url !== undefined && known.has(url) ? url : UNMATCHED;
    const method = HTTP_METHODS.has(request.method) ? request.method : OTHER;
    const status = reply.statusCode;
    childOf(route, method, status).observe(reply.elapsedTime / 1000);
    if (status === 429) {
      let refused = refusals.get(route);
      if (!refused) {
        refused = metrics.refusals.labels(surfaceOf(origin, route));
        refusals.set(route, refused);
      }
      refused.inc();
    }
    done();
  });
}
