/**
 * The one error handler of every REST surface: a coded error of the edge or the ledger → the status the
 * edge table gives its code (D-159) and `{error, code}`; Fastify's own request errors (bad JSON, wrong
 * content type, body too large) → 4xx in the same shape; anything else is logged and answered with a
 * generic INTERNAL that reveals nothing (house rule 3; spec: "Never answer a 500 for bad input").
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { UpstreamUnavailableError } from '../../node/upstream.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { ErrorCode, statusOf } from './error-codes.ts';
import { RestError } from './errors.ts';

/** The code of a Fastify client error, by its status. */
function fastifyCode(status: number): ErrorCode {
  if (status === 429) return ErrorCode.RATE_LIMITED;
  if (status === 413) return ErrorCode.BODY_TOO_LARGE;
  if (status === 415) return ErrorCode.UNSUPPORTED_MEDIA_TYPE;
  return ErrorCode.INVALID_REQUEST;
}

/** Installs the error and not-found handlers on `app` (an origin or a surface plugin). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | RestError | LedgerError | UpstreamUnavailableError, request, reply) => {
    if (error instanceof RestError || error instanceof LedgerError) {
      const status = statusOf(error.code, error.details?.field !== undefined);
      const headers = error instanceof RestError ? error.headers : {};
      return reply.code(status).headers(headers).send({ error: error.message, code: error.code });
    }
    if (error instanceof UpstreamUnavailableError) {
      // The chain node does not answer: nothing was changed, the caller may retry (D-079). No internal address leaks.
      request.log.warn({ err: error }, 'chain node unavailable');
      return reply
        .code(statusOf(error.code))
        .send({ error: 'the chain node does not answer; try again later', code: error.code });
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      // Fastify's client errors keep Fastify's status: FST_ERR_CTP_INVALID_MEDIA_TYPE (415), body parse
      // errors (400), too large (413).
      return reply.code(status).send({ error: error.message, code: fastifyCode(status) });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(statusOf(ErrorCode.INTERNAL)).send({ error: 'internal error', code: ErrorCode.INTERNAL });
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(statusOf(ErrorCode.NOT_FOUND))
      .send({ error: `no route ${request.method} ${request.url.split('?')[0]}`, code: ErrorCode.NOT_FOUND }),
  );
}
