/**
 * Every request of every origin: its id (D-269), its completion line (D-270) and, with traces on, its server
 * span (D-266).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SpanKind, SpanStatusCode, type Tracing } from './tracing.ts';

/** The header that carries a request's id, on the way in (optional) and on every answer. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** D-269: an incoming id is kept when it is 1 to 128 of these characters; anything else gets a fresh UUID. */
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** D-269: the id of a request: the caller's X-Request-Id when it is well-formed and bounded, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && ACCEPTED_ID.test(incoming) ? incoming : randomUUID();
}

/** The name of the id on every log line of the request. */
export const REQUEST_ID_LOG_LABEL = 'requestId';

/**
 * D-270: the routes whose completion is logged at debug rather than info: the JSON-RPC relay, where one line
 * per call would cost a measurable share of the relay itself. Their failures (status 500 and above) are logged at
 * info like any other request's.
 */
const QUIET_ROUTES = new Set(['/rpc']);

/** The route template of a request, or `unmatched` for a 404. */
const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';

/** Installs the request id header, the completion line and the server span; first of the origin's hooks. */
export function installRequestTelemetry(app: FastifyInstance, tracing: Tracing | undefined, origin: string): void {
  const spans = new WeakMap<FastifyRequest, ReturnType<Tracing['start']>>();
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (!tracing) return done();
    const route = routeOf(request);
    const parent = tracing.extract(request.headers);
    const span = tracing.start(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent,
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'svckit.origin': origin,
        'svckit.request_id': request.id,
      },
    });
    spans.set(request, span);
    tracing.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    completed(request, reply);
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}

/** D-270: one line per request when it is answered: route template, status and duration (never the URL or a body). */
function completed(request: FastifyRequest, reply: FastifyReply): void {
  const route = routeOf(request);
  const level = reply.statusCode < 500 && QUIET_ROUTES.has(route) ? 'debug' : 'info';
  if (!(request.log as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)) return;
  request.log[level](
    {
      method: request.method,
      route,
      statusCode: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
    },
    'request completed',
  );
}
