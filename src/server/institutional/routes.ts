/**
 * The institutional REST API plugin, `{base_url}/wallet/api/v1` (surface A): authentication on every request
 * (spec: "require authentication"), the per-IP rate limit (spec: "10 requests per second per IP") and every
 * operation of specs/institutional.openapi.yaml.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routes } from '../../../generated/institutional/routes.gen';
import { ApiError } from '../http/errors.ts';
import { registerOperations } from '../http/operations.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { institutionalHandlers, type InstitutionalDeps } from './handlers.ts';

/** Options of the plugin: handler dependencies, the authenticator and the rate limit (0 = off, for benchmarks). */
export type InstitutionalOptions = InstitutionalDeps & { authenticator: Authenticator; requestsPerSecond: number };

/** Registers the surface (mount with prefix /wallet/api/v1). */
export async function institutionalRoutes(app: FastifyInstance, options: InstitutionalOptions): Promise<void> {
  if (options.requestsPerSecond > 0) {
    // D-022: 429 carries Retry-After and the x-ratelimit-* headers; the body is the {error} shape.
    await app.register(rateLimit, {
      max: options.requestsPerSecond,
      timeWindow: 1000,
      errorResponseBuilder: (_request, context) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        return new ApiError(429, 'RATE_LIMITED', `rate limit exceeded: ${context.max} requests per second per IP; retry in ${seconds} s`, {
          'retry-after': String(seconds),
        });
      },
    });
  }
  app.decorateRequest('credential', null);
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const credential = await options.authenticator.authenticate({
      method: request.method,
      target: request.url,
      authorization: request.headers.authorization,
    });
    (request as FastifyRequest & { credential: unknown }).credential = credential;
  });
  registerOperations(app, routes, institutionalHandlers(options));
}
