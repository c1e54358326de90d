/**
 * The one error handler of every REST surface: ApiError → its status and `{error, code}`; Fastify's own
 * request errors (bad JSON, wrong content type, body too large) → 4xx in the same shape; anything else is
 * logged and answered with a generic 500 that reveals nothing (house rule 3; spec: "Never answer a 500 for
 * bad input").
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { UpstreamUnavailableError } from '../../chain/upstream.ts';
import { ApiError } from './errors.ts';

/** Installs the error and not-found handlers on `app` (an origin or a surface plugin). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.status).headers(error.headers).send({ error: error.message, code: error.code });
    }
    if (error instanceof UpstreamUnavailableError) {
      // The chain node does not answer: nothing was changed, the caller may retry (D-079). No internal address leaks.
      request.log.warn({ err: error }, 'chain node unavailable');
      return reply.code(503).send({ error: 'the chain node does not answer; try again later', code: 'CHAIN_UNAVAILABLE' });
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      // Fastify's client errors: FST_ERR_CTP_INVALID_MEDIA_TYPE (415), body parse errors (400), too large (413).
      const code = status === 429 ? 'RATE_LIMITED' : status === 413 ? 'BODY_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'INVALID_REQUEST';
      return reply.code(status).send({ error: error.message, code });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ error: 'internal error', code: 'INTERNAL' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: `no route ${request.method} ${request.url.split('?')[0]}`, code: 'NOT_FOUND' }),
  );
}
