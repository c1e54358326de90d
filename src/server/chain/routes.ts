/**
 * POST /rpc: JSON-RPC 2.0 over HTTP, single requests and batches (spec: "POST {base_url}/rpc with header
 * Content-Type: application/json and a JSON-RPC 2.0 body"). Errors are JSON-RPC error objects with HTTP
 * 200 (D-023); an empty batch is -32600 and a batch over 100 one -32005 error (D-051); a body nested deeper
 * than D-144 allows is -32600 inside an HTTP 400; a Content-Type other than application/json is -32600
 * inside an HTTP 415 (D-202).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RpcResponse } from '../../node/upstream.ts';
import type { RpcDispatcher } from './service.ts';
import { MAX_BATCH } from './service.ts';
import { chainRpcErrorCodes } from '@svckit/sdk/chain';
import { JsonRpcFailure } from './errors.ts';
import { SIMULATED_METHODS } from './simulation.ts';
import type { RateCounter } from '../http/rate-window.ts';
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from '../http/body-depth.ts';

/** A request without an `id` member is a notification: it gets no response (JSON-RPC 2.0 §4.1). */
const isNotification = (request: unknown) =>
  typeof request === 'object' && request !== null && !Array.isArray(request) && !('id' in request);

/** A /rpc body or /ws frame read once: refused for its depth (D-144), not JSON, or the parsed value. */
export type ReadBody =
  | { kind: 'too-deep'; answer: RpcResponse }
  | { kind: 'not-json' }
  | { kind: 'json'; value: unknown };

/** Reads a body: its depth is bounded before it is parsed (D-144), and it is parsed once for weight and answer. */
export function readBody(text: string): ReadBody {
  const tooDeep = tooDeepAnswer(text);
  if (tooDeep) return { kind: 'too-deep', answer: tooDeep };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    return { kind: 'not-json' };
  }
}

/** Answers one read body; undefined when nothing is to be sent back. `client` is the sender's IP (D-200). */
export async function answerRpcBody(
  body: ReadBody,
  dispatcher: RpcDispatcher,
  transport: 'http' | 'ws',
  client: string,
): Promise<RpcResponse | RpcResponse[] | undefined> {
  if (body.kind === 'too-deep') return body.answer;
  if (body.kind === 'not-json') {
    return {
      jsonrpc: '2.0',
      id: null,
      error: new JsonRpcFailure('ParseError', 'the body is not valid JSON').toObject(),
    };
  }
  const value = body.value;
  if (!Array.isArray(value)) {
    const answer = await dispatcher.handle(value, transport, client);
    dispatcher.onAnswer?.(value, answer);
    return isNotification(value) && !answer.error ? undefined : answer;
  }
  if (value.length === 0)
    return { jsonrpc: '2.0', id: null, error: new JsonRpcFailure('InvalidRequest', 'empty batch').toObject() };
  if (value.length > MAX_BATCH) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: new JsonRpcFailure(
        'LimitExceeded',
        `a batch holds at most ${MAX_BATCH} requests, got ${value.length}`,
      ).toObject(),
    };
  }
  const answers = await dispatcher.handleBatch(value, transport, client);
  if (dispatcher.onAnswer) for (let i = 0; i < answers.length; i++) dispatcher.onAnswer(value[i], answers[i]!);
  const kept = answers.filter((answer, i) => !isNotification(value[i]) || answer.error);
  return kept.length ? kept : undefined;
}

/** The units one request object takes of the rate limit: `simulationWeight` for a simulated call (D-201, D-257), else 1. */
const weightOf = (request: unknown, simulationWeight: number) =>
  typeof request === 'object' &&
  request !== null &&
  SIMULATED_METHODS.has(String((request as { method?: unknown }).method))
    ? simulationWeight
    : 1;

/**
 * The units a body takes of the rate limit: one per request, a batch counted per entry (D-024), a simulated
 * call counted `simulationWeight` (D-201). A body that is not JSON or too deep counts one.
 */
export function requestWeight(body: ReadBody, simulationWeight: number): number {
  if (body.kind !== 'json') return 1;
  if (!Array.isArray(body.value)) return weightOf(body.value, simulationWeight);
  let units = 0;
  for (const request of body.value.slice(0, MAX_BATCH)) units += weightOf(request, simulationWeight);
  return Math.max(1, units);
}

/**
 * D-202: /rpc takes `application/json` only, with at most a `charset=utf-8` parameter (JSON is UTF-8, RFC 8259).
 * Any other type, `text/plain` among them, is refused: a browser sends such a POST from any page without a CORS
 * preflight.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...parameters] = header.split(';');
  if (type!.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split('=');
    return name!.trim().toLowerCase() === 'charset' && /^"?utf-8"?$/i.test(value?.trim() ?? '');
  });
}

/** Registers POST /rpc on the base origin; `limiter` applies D-024 per client IP, weighted by D-201. */
export async function rpcRoutes(
  app: FastifyInstance,
  options: { dispatcher: RpcDispatcher; limiter: RateCounter },
): Promise<void> {
  // The raw text is needed to answer malformed JSON with -32700 rather than Fastify's 400. Only the JSON type
  // has a parser: every other type is refused before its body is read (D-202).
  app.removeAllContentTypeParsers();
  const asText = { parseAs: 'string', bodyLimit: 5 * 1024 * 1024 } as const;
  const keepText = (_req: unknown, body: string | Buffer, done: (error: null, body: string | Buffer) => void) =>
    done(null, body);
  app.addContentTypeParser('application/json', asText, keepText);
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    if (isJsonContentType(request.headers['content-type'])) return;
    // D-202: HTTP 415 with a JSON-RPC error object, as every other /rpc refusal.
    const error = new JsonRpcFailure(
      'InvalidRequest',
      'Content-Type must be application/json (a charset=utf-8 parameter is allowed)',
    ).toObject();
    return reply.code(415).send({ jsonrpc: '2.0', id: null, error });
  };
  app.post('/rpc', { onRequest }, async (request, reply) => {
    const body = readBody(String(request.body ?? ''));
    const weight = requestWeight(body, options.dispatcher.simulationWeight);
    const verdict = await options.limiter.take(request.ip, weight);
    if (verdict.unavailable) {
      // D-168: the shared counter did not answer; fail closed with -32603 inside an HTTP 503.
      const error = new JsonRpcFailure('InternalError', 'the shared rate limit store does not answer; try again later');
      return reply.code(503).header('retry-after', '1').send({ jsonrpc: '2.0', id: null, error: error.toObject() });
    }
    if (!verdict.allowed) {
      // D-024: JSON-RPC error -32005 "limit exceeded" inside an HTTP 429 with Retry-After.
      const error = new JsonRpcFailure(
        'LimitExceeded',
        limitText(options.limiter.limit, options.dispatcher),
      ).toObject();
      return reply
        .code(429)
        .header('retry-after', String(verdict.retryAfterSeconds))
        .send({ jsonrpc: '2.0', id: null, error });
    }
    // D-144: a body nested too deep is refused before it is parsed: -32600 inside an HTTP 400.
    if (body.kind === 'too-deep') return reply.code(400).send(body.answer);
    const answer = await answerRpcBody(body, options.dispatcher, 'http', request.ip);
    if (answer === undefined) return reply.code(204).send();
    // D-024, D-200: a single request (not a batch, which D-051 answers in a 200) refused by a limit (-32005) is a
    // rate-limit answer, inside an HTTP 429 with Retry-After, so that clients and harnesses back off.
    const single = body.kind === 'json' && !Array.isArray(body.value);
    if (single && !Array.isArray(answer) && answer.error?.code === chainRpcErrorCodes.LimitExceeded)
      reply.code(429).header('retry-after', '1');
    return reply.header('content-type', 'application/json; charset=utf-8').send(serializeAnswer(answer));
  });
}

/** The detail of a D-024 refusal: the limit, and what a simulated call counts (D-201). */
export function limitText(limit: number, dispatcher: RpcDispatcher): string {
  return `${limit} requests per second per IP; eth_call, eth_estimateGas, eth_createAccessList and eth_getProof count ${dispatcher.simulationWeight} each`;
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
