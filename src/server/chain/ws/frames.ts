/**
 * One text frame on `/ws` (D-012): eth_subscribe and eth_unsubscribe are answered here, everything else,
 * malformed frames included, exactly as POST /rpc answers the same body (-32700 for text that is not JSON,
 * -32600 for a value that is not a request object, an empty batch, a batch entry that is not an object, or a
 * frame nested deeper than D-144 allows; D-134).
 */
import type { SubscriptionType } from '@svckit/sdk/chain/types';
import type { RpcResponse } from '../../../node/upstream.ts';
import type { RpcDispatcher } from '../service.ts';
import { JsonRpcFailure } from '../errors.ts';
import { answerRpcBody, type ReadBody } from '../routes.ts';
import type { SubscriptionSet } from './subscriptions.ts';

type SubscriptionRequest = { id?: unknown; method: 'eth_subscribe' | 'eth_unsubscribe'; params?: unknown };

/** A single request object (not a batch, not null, not a scalar) naming a subscription method. */
function isSubscriptionRequest(value: unknown): value is SubscriptionRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const method = (value as { method?: unknown }).method;
  return method === 'eth_subscribe' || method === 'eth_unsubscribe';
}

/** Answers one frame, read once ({@link readBody}); undefined when nothing is sent back. Never rejects for bad input. */
export async function answerFrame(
  body: ReadBody,
  subscriptions: SubscriptionSet,
  dispatcher: RpcDispatcher,
  client: string,
): Promise<RpcResponse | RpcResponse[] | undefined> {
  // D-144: nesting is bounded before parsing, as on /rpc (readBody).
  if (body.kind !== 'json' || !isSubscriptionRequest(body.value)) return answerRpcBody(body, dispatcher, 'ws', client);
  const request = body.value;
  const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
  try {
    const params = dispatcher.checkParams(request.method, request.params);
    if (request.method === 'eth_unsubscribe')
      return { jsonrpc: '2.0', id, result: subscriptions.remove(String(params[0])) };
    const kind = params[0] as SubscriptionType;
    return { jsonrpc: '2.0', id, result: subscriptions.add(kind, (params[1] ?? {}) as object) };
  } catch (error) {
    const failure = error instanceof JsonRpcFailure ? error : new JsonRpcFailure('InternalError');
    return { jsonrpc: '2.0', id, error: failure.toObject() };
  }
}
