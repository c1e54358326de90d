/**
 * The institutional REST API plugin, `{base_url}/wallet/api/v1` (surface A): authentication on every request
 * (spec: "require authentication"), the per-IP rate limit (spec: "10 requests per second per IP") and every
 * operation of specs/institutional.openapi.yaml.
 */
import type { FastifyInstance } from 'fastify';
import { routes } from '../../../generated/institutional/routes.gen';
import { limitRequests } from '../http/rate-limit.ts';
import { registerOperations } from '../http/operations.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { bodyDigestOf, tapBodyForDigest } from '../auth/content-digest.ts';
import { institutionalHandlers, type InstitutionalDeps } from './service.ts';

/** Options of the plugin: handler dependencies, the authenticator and the rate limit (0 = off, for benchmarks). */
export type InstitutionalOptions = InstitutionalDeps & { authenticator: Authenticator; requestsPerSecond: number };

/** Registers the surface (mount with prefix /wallet/api/v1). */
export async function institutionalRoutes(app: FastifyInstance, options: InstitutionalOptions): Promise<void> {
  await limitRequests(app, options.requestsPerSecond);
  app.decorateRequest('credential', null);
  // D-225: a signature bound to the body's Content-Digest has the body hashed as it is parsed.
  app.addHook('preParsing', tapBodyForDigest);
  app.addHook('preHandler', async (request) => {
    const credential = await options.authenticator.authenticate({
      method: request.method,
      target: request.url,
      authorization: request.headers.authorization,
      contentDigest: request.headers['content-digest'],
      body: bodyDigestOf(request),
    });
    request.credential = credential;
  });
  registerOperations(app, routes, institutionalHandlers(options));
}
