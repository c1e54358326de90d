/**
 * D-207: the two headers every answer of every origin carries, errors and not-found answers included:
 * Strict-Transport-Security (spec: "Plain HTTP connections are rejected", so a browser that has met the origin
 * once is told never to try plain HTTP for it) and `X-Content-Type-Options: nosniff` (a body is read as the
 * type it is declared, never sniffed into script or HTML).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** D-207: the default max-age of Strict-Transport-Security, in seconds (one year). */
export const DEFAULT_HSTS_MAX_AGE = 31_536_000;

/** The headers, by lower-case name; `hstsMaxAge` in seconds (SVC_HSTS_MAX_AGE). */
export function securityHeaders(hstsMaxAge: number): Readonly<Record<string, string>> {
  // D-207: no includeSubDomains or preload: this server answers for its own host names only, and cannot
  // speak for sibling hosts a deployment may still serve over plain HTTP.
  return { 'strict-transport-security': `max-age=${hstsMaxAge}`, 'x-content-type-options': 'nosniff' };
}

/** Sets the headers on `reply` (for answers that bypass the hooks, e.g. Fastify's framework errors). */
export function withSecurityHeaders(reply: FastifyReply, hstsMaxAge: number): FastifyReply {
  return reply.headers(securityHeaders(hstsMaxAge));
}

/**
 * Sets the headers on every answer of `app`, an origin: registered first, the hook runs before any other, so
 * a refusal by a later hook (a rate limit, a credential), an error and the not-found answer all carry them.
 */
export function installSecurityHeaders(app: FastifyInstance, hstsMaxAge: number): void {
  const headers = securityHeaders(hstsMaxAge);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
