/**
 * `{ws_url}` = wss://host/ws (spec: "A WebSocket endpoint exists at {ws_url} for authorised access"):
 * JSON-RPC 2.0 over WebSocket (D-012), authenticated at the upgrade with the institutional credentials and
 * the `chain:subscribe` permission (D-016). Every /rpc method works, plus eth_subscribe and eth_unsubscribe.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChainRuntime } from '../../chain/runtime.ts';
import type { RpcResponse } from '../../chain/upstream.ts';
import { authorize, type Authenticator } from '../auth/authenticate.ts';
import type { RpcDispatcher } from '../rpc/dispatcher.ts';
import { JsonRpcFailure } from '../rpc/errors.ts';
import { answerRpcBody, requestCount } from '../rpc/routes.ts';
import { SubscriptionSet } from './subscriptions.ts';
import type { RateWindow } from '../http/rate-window.ts';

/** What the endpoint needs. */
export type WsOptions = { dispatcher: RpcDispatcher; chain: ChainRuntime; authenticator: Authenticator; limiter: RateWindow };

type Request = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/** Registers GET /ws on the base origin. */
export async function wsRoutes(app: FastifyInstance, options: WsOptions): Promise<void> {
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    // D-016: the same Authorization header as the institutional API, signed over GET and /ws for SVC-MLDSA.
    const credential = await options.authenticator.authenticate({ method: 'GET', target: request.url, authorization: request.headers.authorization });
    authorize(credential, 'chain:subscribe');
  });
  app.get('/ws', { websocket: true }, (socket, request) => {
    const send = (frame: unknown) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(frame));
    const subscriptions = new SubscriptionSet(options.chain.upstream, (subscription, result) =>
      send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } }),
    );
    const onSealed = ({ number }: { number: number }) => void subscriptions.onBlock(number).catch(() => undefined);
    options.chain.producer?.on('sealed', onSealed);
    socket.on('close', () => options.chain.producer?.off('sealed', onSealed));
    socket.on('message', async (data: Buffer) => {
      const text = data.toString();
      // D-024: /ws shares the /rpc limit; each frame counts once per request it holds.
      if (!options.limiter.take(request.ip, requestCount(text)).allowed) {
        send({ jsonrpc: '2.0', id: null, error: new JsonRpcFailure('LimitExceeded', `${options.limiter.limit} requests per second per IP`).toObject() });
        return;
      }
      const answer = await handleFrame(text, subscriptions, options.dispatcher);
      if (answer !== undefined) send(answer);
    });
  });
}

/** Answers one frame: subscriptions here, every other method through the dispatcher. */
async function handleFrame(text: string, subscriptions: SubscriptionSet, dispatcher: RpcDispatcher): Promise<RpcResponse | RpcResponse[] | undefined> {
  let request: Request;
  try {
    request = JSON.parse(text) as Request;
  } catch {
    return answerRpcBody(text, dispatcher, 'ws');
  }
  if (Array.isArray(request) || (request.method !== 'eth_subscribe' && request.method !== 'eth_unsubscribe')) {
    return answerRpcBody(text, dispatcher, 'ws');
  }
  const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
  try {
    const params = dispatcher.checkParams(request.method, request.params);
    if (request.method === 'eth_unsubscribe') return { jsonrpc: '2.0', id, result: subscriptions.remove(String(params[0])) };
    const kind = params[0] as 'newHeads' | 'logs';
    return { jsonrpc: '2.0', id, result: subscriptions.add(kind, (params[1] ?? {}) as object) };
  } catch (error) {
    const failure = error instanceof JsonRpcFailure ? error : new JsonRpcFailure('InternalError');
    return { jsonrpc: '2.0', id, error: failure.toObject() };
  }
}

