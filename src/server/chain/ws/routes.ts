/**
 * `{ws_url}` = wss://host/ws (spec: "A WebSocket endpoint exists at {ws_url} for authorised access"):
 * JSON-RPC 2.0 over WebSocket (D-012), authenticated at the upgrade with the institutional credentials and
 * the `chain:subscribe` permission (D-016). Every /rpc method works, plus eth_subscribe and eth_unsubscribe.
 * Bounded by D-134 (frames), D-135 (sockets, subscriptions, upgrades), D-136 (slow consumers) and D-137
 * (credentials checked again while a socket is open).
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChainRuntime } from '../../../node/runtime.ts';
import type { Credential } from '../../../ledger/credentials.ts';
import { authorize, type Authenticator } from '../../auth/authenticate.ts';
import { limitRequests } from '../../http/rate-limit.ts';
import type { RateCounter } from '../../http/rate-window.ts';
import type { RpcDispatcher } from '../service.ts';
import { JsonRpcFailure } from '../errors.ts';
import { limitText, readBody, requestWeight } from '../routes.ts';
import { answerFrame } from './frames.ts';
import { POLICY_CLOSE, type SocketRegistry, type WsLimits } from './limits.ts';
import { upgradeAuthorization } from './query-token.ts';
import { SubscriptionSet } from './subscriptions.ts';

/** What the endpoint needs. */
export type WsOptions = {
  dispatcher: RpcDispatcher;
  chain: ChainRuntime;
  authenticator: Authenticator;
  limiter: RateCounter;
  limits: WsLimits;
  /** The open sockets, their caps and the D-137 recheck (built by the stack, which reports on it). */
  registry: SocketRegistry;
};

/** D-134: the largest text frame /ws reads, in bytes; a larger one closes the socket with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** D-136: a peer that does not complete the closing handshake within this time is cut off. */
const CLOSE_TIMEOUT_MS = 5_000;

/** Registers GET /ws on the base origin. */
export async function wsRoutes(app: FastifyInstance, options: WsOptions): Promise<void> {
  // ws 8.23 takes closeTimeout on the server; @types/ws does not declare it yet.
  const serverOptions = { maxPayload: MAX_FRAME_BYTES, closeTimeout: CLOSE_TIMEOUT_MS };
  await app.register(websocket, {
    options: serverOptions,
    // A protocol error (D-134: a frame over the cap) is closed by ws itself with its close code (1009), which
    // must reach the client; any other socket error ends the connection at once.
    errorHandler: (error, socket, request) => {
      request.log.warn({ err: error }, 'svckit /ws: socket error');
      if (!String((error as NodeJS.ErrnoException).code ?? '').startsWith('WS_ERR_')) socket.terminate();
    },
  });
  // D-135: every upgrade attempt counts, before any credential is looked at, so refused attempts cost little.
  await limitRequests(app, options.limits.upgradesPerSecond);
  const { registry } = options;
  app.addHook('onClose', async () => registry.stop());
  const credentials = new WeakMap<FastifyRequest, Credential>();
  app.addHook('preValidation', async (request: FastifyRequest) => {
    // D-016: the same Authorization header as the institutional API, signed over GET and /ws for SVC-MLDSA;
    // D-261: without the header, a bearer key in the access_token query parameter.
    const credential = await options.authenticator.authenticate({
      method: 'GET',
      target: request.url,
      authorization: upgradeAuthorization(request),
    });
    authorize(credential, 'chain:subscribe');
    registry.assertRoom(credential, request.ip);
    credentials.set(request, credential);
  });
  app.get('/ws', { websocket: true }, (socket, request) => {
    if (!registry.add(socket, credentials.get(request)!, request.ip)) return;
    const send = (frame: unknown) => {
      if (socket.readyState !== socket.OPEN) return;
      const text = JSON.stringify(frame);
      // D-136: a client that stops reading is closed rather than buffered for without bound.
      if (socket.bufferedAmount + Buffer.byteLength(text) > options.limits.maxBufferedBytes) {
        socket.close(POLICY_CLOSE, `slow consumer: more than ${options.limits.maxBufferedBytes} bytes unsent`);
        return;
      }
      socket.send(text);
    };
    const subscriptions = new SubscriptionSet(
      options.chain.upstream,
      options.limits.maxSubscriptions,
      (subscription, result) => send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } }),
    );
    registry.watch(socket, subscriptions);
    const onSealed = ({ number }: { number: number }) => void subscriptions.onBlock(number).catch(() => undefined);
    options.chain.producer?.on('sealed', onSealed);
    socket.on('close', () => options.chain.producer?.off('sealed', onSealed));
    const onFrame = async (text: string) => {
      // D-024: /ws shares the /rpc limit; each frame counts once per request it holds, a simulated call more (D-201).
      const body = readBody(text);
      const verdict = await options.limiter.take(request.ip, requestWeight(body, options.dispatcher.simulationWeight));
      if (verdict.unavailable) {
        send({
          jsonrpc: '2.0',
          id: null,
          error: new JsonRpcFailure(
            'InternalError',
            'the shared rate limit store does not answer; try again later',
          ).toObject(),
        });
        return;
      }
      if (!verdict.allowed) {
        send({
          jsonrpc: '2.0',
          id: null,
          error: new JsonRpcFailure('LimitExceeded', limitText(options.limiter.limit, options.dispatcher)).toObject(),
        });
        return;
      }
      const answer = await answerFrame(body, subscriptions, options.dispatcher, request.ip);
      if (answer !== undefined) send(answer);
    };
    // The listener owns its errors: a frame that fails in an unforeseen way gets -32603 and is logged, and the
    // rejection never reaches the process (which would end every origin's connections).
    socket.on('message', (data: Buffer) => {
      onFrame(data.toString()).catch((error: unknown) => {
        request.log.error({ err: error }, 'svckit /ws: a frame failed');
        send({ jsonrpc: '2.0', id: null, error: new JsonRpcFailure('InternalError').toObject() });
      });
    });
  });
}
