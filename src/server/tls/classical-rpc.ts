/**
 * D-259: the classical-TLS door of the chain surface. Off unless SVC_RPC_CLASSICAL_PORT is set: a second HTTPS
 * listener whose TLS also accepts the classical groups (X25519, P-256), for the Ethereum tools whose TLS stack
 * cannot offer X25519MLKEM768 yet. It has no routes of its own: every request and upgrade it decrypts is handed
 * to the base origin's router, so /rpc and /ws there count in the same per-IP rate limits, /ws socket caps and
 * simulation budgets; a hook of the base origin answers every other path from this listener with 404. The
 * three origins keep the spec's hybrid-only transport ("hybrid post-quantum TLS (X25519MLKEM768)", D-093).
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { clientErrorHandler } from '../http/client-errors.ts';
import { KEEP_ALIVE_TIMEOUT_MS, limitConnections, timeoutOptions } from '../http/connections.ts';
import { ErrorCode, statusOf } from '../http/error-codes.ts';
import type { TlsMaterial } from './dev-certificates.ts';
import { HYBRID_GROUP, httpsOptions } from './tls-options.ts';

/** The routes of the base origin the classical listener reaches (their route paths). */
export const CLASSICAL_RPC_ROUTES: ReadonlySet<string> = new Set(['/rpc', '/ws']);

/**
 * D-259: the line `svckit serve` writes to stderr at start when the classical listener is on, so that the
 * relaxed door is never silent.
 */
export const CLASSICAL_RPC_WARNING =
  `svckit serve: WARNING: SVC_RPC_CLASSICAL_PORT is set: /rpc and /ws are also served on a separate listener that accepts TLS clients without ${HYBRID_GROUP} (classical X25519 and P-256 key exchange). ` +
  'It serves nothing else and shares the limits of the base origin; the base, wallet and site origins stay hybrid-only.';

/** The requests that came in through a classical listener, so that the base origin can keep them to /rpc and /ws. */
const classicalRequests = new WeakSet<IncomingMessage>();

/**
 * Installs on the base origin, before its routes, the hook that answers 404 in the `{error, code}` shape (as the
 * origin's not-found handler does) to every request of the classical listener outside /rpc and /ws.
 */
export function keepClassicalToRpc(base: FastifyInstance): void {
  base.addHook('onRequest', async (request, reply) => {
    if (!classicalRequests.has(request.raw)) return;
    if (CLASSICAL_RPC_ROUTES.has(request.routeOptions.url ?? '')) return;
    return reply.code(statusOf(ErrorCode.NOT_FOUND)).send({
      error: `no route ${request.method} ${request.url.split('?')[0]} on the classical-TLS listener: it serves only /rpc and /ws`,
      code: ErrorCode.NOT_FOUND,
    });
  });
}

/**
 * The classical listener, not yet listening: TLS 1.3 with X25519MLKEM768 first and the classical groups after
 * it, the base origin's time-outs (D-204) and client-error answers (D-206), and connection caps counted together
 * with the base origin's (D-205), so a client gets no more connections through both doors than through one.
 */
export function classicalRpcServer(base: FastifyInstance, tls: TlsMaterial, config: Config): https.Server {
  const server = https.createServer({ ...httpsOptions(tls, true), ...timeoutOptions(config.connections) });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', clientErrorHandler(config.connections.requestTimeoutMs, config.hstsMaxAge).bind(base));
  limitConnections(server, config.connections, base.server);
  server.on('request', (request: IncomingMessage, response) => {
    classicalRequests.add(request);
    base.routing(request, response);
  });
  // /ws: @fastify/websocket upgrades what the base server's 'upgrade' listener routes to it.
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    classicalRequests.add(request);
    base.server.emit('upgrade', request, socket, head);
  });
  return server;
}
