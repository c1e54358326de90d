/**
 * POST /rpc: JSON-RPC 2.0 over HTTP, single requests and batches (spec: "POST {base_url}/rpc with header
 * Content-Type: application/json and a JSON-RPC 2.0 body"). Errors are JSON-RPC error objects with HTTP
 * 200 (D-023); an empty batch is -32600 and a batch over 100 one -32005 error (D-051); a body nested deeper
 * than D-144 allows is -32600 inside an HTTP 400.
 */
import type { FastifyInstance } from 'fastify';
import type { RpcResponse } from '../../node/upstream.ts';
import type { RpcDispatcher } from './service.ts';
import { MAX_BATCH } from './service.ts';
import { JsonRpcFailure } from './errors.ts';
import type { RateCounter } from '../http/rate-window.ts';
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from '../http/body-depth.ts';

/** A request without an `id` member is a notification: it gets no response (JSON-RPC 2.0 §4.1). */
const isNotification = (request: unknown) =>
  typeof request === 'object' && request !== null && !Array.isArray(request) && !('id' in request);

/** Parses and answers one JSON-RPC body (text); returns undefined when nothing is to be sent back. */
export async function answerRpcBody(
  text: string,
  dispatcher: RpcDispatcher,
  transport: 'http' | 'ws',
): Promise<RpcResponse | RpcResponse[] | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      jsonrpc: '2.0',
      id: null,
      error: new JsonRpcFailure('ParseError', 'the body is not valid JSON').toObject(),
    };
  }
  if (!Array.isArray(body)) {
    const answer = await dispatcher.handle(body, transport);
    return isNotification(body) && !answer.error ? undefined : answer;
  }
  if (body.length === 0)
    return { jsonrpc: '2.0', id: null, error: new JsonRpcFailure('InvalidRequest', 'empty batch').toObject() };
  if (body.length > MAX_BATCH) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: new JsonRpcFailure(
        'LimitExceeded',
        `a batch holds at most ${MAX_BATCH} requests, got ${body.length}`,
      ).toObject(),
    };
  }
  const answers = await dispatcher.handleBatch(body, transport);
  const kept = answers.filter((answer, i) => !isNotification(body[i]) || answer.error);
  return kept.length ? kept : undefined;
}

/** How many requests a body holds for the rate limit (D-024: one per batch entry). */
export function requestCount(text: string): number {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('[')) return 1;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) ? Math.max(1, Math.min(parsed.length, MAX_BATCH)) : 1;
  } catch {
    return 1;
  }
}

/** Registers POST /rpc on the base origin; `limiter` applies D-024 per client IP. */
export async function rpcRoutes(
  app: FastifyInstance,
  options: { dispatcher: RpcDispatcher; limiter: RateCounter },
): Promise<void> {
  // The raw text is needed to answer malformed JSON with -32700 rather than Fastify's 400.
  app.removeAllContentTypeParsers();
  const asText = { parseAs: 'string', bodyLimit: 5 * 1024 * 1024 } as const;
  const keepText = (_req: unknown, body: string | Buffer, done: (error: null, body: string | Buffer) => void) =>
    done(null, body);
  app.addContentTypeParser('*', asText, keepText);
  // The same parser by name for the usual type: Fastify remembers a named match, while the catch-all is
  // looked for again (header parsed, every list searched) on every request (D-196).
  app.addContentTypeParser('application/json', asText, keepText);
  app.post('/rpc', async (request, reply) => {
    const text = String(request.body ?? '');
    const verdict = await options.limiter.take(request.ip, requestCount(text));
    if (verdict.unavailable) {
      // D-168: the shared counter did not answer; fail closed with -32603 inside an HTTP 503.
      const error = new JsonRpcFailure('InternalError', 'the shared rate limit store does not answer; try again later');
      return reply.code(503).header('retry-after', '1').send({ jsonrpc: '2.0', id: null, error: error.toObject() });
    }
    if (!verdict.allowed) {
      // D-024: JSON-RPC error -32005 "limit exceeded" inside an HTTP 429 with Retry-After.
      const error = new JsonRpcFailure(
        'LimitExceeded',
        `${options.limiter.limit} requests per second per IP`,
      ).toObject();
      return reply
        .code(429)
        .header('retry-after', String(verdict.retryAfterSeconds))
        .send({ jsonrpc: '2.0', id: null, error });
    }
    // D-144: a body nested too deep is refused before it is parsed: -32600 inside an HTTP 400.
    const tooDeep = tooDeepAnswer(text);
    if (tooDeep) return reply.code(400).send(tooDeep);
    const answer = await answerRpcBody(text, options.dispatcher, 'http');
    if (answer === undefined) return reply.code(204).send();
    return reply.header('content-type', 'application/json; charset=utf-8').send(serializeAnswer(answer));
  });
}

/** Results serialized once, by the result object: a cached sealed block is the same object on every hit (D-196). */
const serializedResults = new WeakMap<object, string>();

/**
 * The JSON text of an answer, the same as `JSON.stringify(answer)` up to member order: an object result is
 * serialized once and reused while the object lives, so a block answered from the cache is not serialized
 * again on every request.
 */
export function serializeAnswer(answer: RpcResponse | RpcResponse[]): string {
  if (Array.isArray(answer) || answer.error !== undefined) return JSON.stringify(answer);
  const result = answer.result;
  if (typeof result !== 'object' || result === null) return JSON.stringify(answer);
  let text = serializedResults.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    serializedResults.set(result, text);
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(answer.id)},"result":${text}}`;
}

/** The -32600 answer to a body nested deeper than D-144 allows, read without parsing it; undefined otherwise. /rpc and /ws share it. */
export function tooDeepAnswer(text: string): RpcResponse | undefined {
  if (jsonDepth(text) <= MAX_JSON_DEPTH) return undefined;
  return { jsonrpc: '2.0', id: null, error: new JsonRpcFailure('InvalidRequest', tooDeepMessage()).toObject() };
}
