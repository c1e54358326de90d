/**
 * A JSON-RPC 2.0 client for the node behind the gateway (embedded Anvil or CHAIN_RPC_URL), with
 * batches, so the explorer's views cost one round trip.
 */
import http from 'node:http';
import https from 'node:https';
import { SvcError } from '@svckit/sdk/errors';
import { SpanKind } from '@opentelemetry/api';
import type { Tracing } from '../server/telemetry/tracing.ts';

/** A JSON-RPC error object (JSON-RPC 2.0 §5.1). */
export type RpcErrorObject = { code: number; message: string; data?: unknown };

/** One JSON-RPC response: a result or an error. */
export type RpcResponse = { jsonrpc: '2.0'; id: number | string | null; result?: unknown; error?: RpcErrorObject };

/** One call in a batch. */
export type RpcCall = { method: string; params: unknown[] };

/** An error answered by the upstream node, carried as-is to the caller. */
export class UpstreamRpcError extends SvcError<number> {
  override name = 'UpstreamRpcError';
  /** Wraps the node's error object; `code` is its JSON-RPC code. */
  constructor(readonly error: RpcErrorObject) {
    super(error.code, error.message);
  }
}

/**
 * The node could not be reached or answered something that is not JSON-RPC. The message never holds the
 * node's URL (D-139: CHAIN_RPC_URL may carry credentials, and this text reaches /rpc answers and transfer
 * records); `node` is the redacted URL, for server logs only.
 */
export class UpstreamUnavailableError extends SvcError<'CHAIN_UNAVAILABLE'> {
  override name = 'UpstreamUnavailableError';
  /**
   * `node`: the node's URL without credentials, path or query ({@link redactedNodeUrl}). `mayHaveArrived`:
   * a connection was open, so the node may have received (and acted on) the request; false only when no
   * connection was ever made (refused, unresolvable), so the request certainly did not arrive (D-140).
   */
  constructor(
    message: string,
    readonly node: string,
    readonly mayHaveArrived = true,
  ) {
    super('CHAIN_UNAVAILABLE', message);
  }
}

/** D-140: the default time-out of one upstream call, connection to last byte (SVC_CHAIN_TIMEOUT_MS). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/** One exchange's transport failure: whether a connection was open when it failed. */
type ExchangeError = Error & { reused?: boolean; connected?: boolean };

/**
 * D-139: the node's URL as a log may show it: scheme, host and port. User, password, path and query are
 * dropped, because providers put API keys in any of them (`/v3/<key>`, `?apikey=`); `/…` marks a dropped path.
 */
export function redactedNodeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 || parsed.search ? '/…' : ''}`;
}

/** A JSON-RPC client for one upstream URL. */
export class Upstream {
  private nextId = 1;
  private readonly target: URL;
  /** D-139: what errors and logs may name. */
  private readonly node: string;
  // node:http(s) with a keep-alive agent rather than fetch: on loopback fetch costs about 0.3 ms more per
  // call (scripts/bench/rpc.ts), which is most of the gateway's own latency. Idle sockets are unref'd.
  private readonly agent: http.Agent;

  private readonly timeoutMs: number;

  /**
   * Test seam of the in-process reference target (conformance/targets/reference.ts) only: sees each single
   * request (`send`, `call`) before it goes to the node and may answer it with an error object in the node's
   * place, as a node refusing it would (the conformance check of the spec's "If the broadcast fails the record
   * is marked failed and is not retried" needs a node that refuses one broadcast). Never set in production,
   * where it is undefined and costs one property read per request.
   */
  beforeSend: ((call: RpcCall) => Promise<RpcErrorObject | undefined>) | undefined = undefined;

  /** D-266: the stack's tracing; each request or batch to the node is a client span. Undefined: traces off. */
  tracing: Tracing | undefined = undefined;
  /** D-279: hears each failed exchange with the node, by kind (the metrics); undefined costs one property read. */
  onFailure: ((kind: 'unreachable' | 'timeout' | 'bad_answer') => void) | undefined = undefined;

  /** Creates a client for `url` (http or https); every call fails after `timeoutMs` (D-140). */
  constructor(
    readonly url: string,
    options: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.target = new URL(url);
    this.node = redactedNodeUrl(url);
    this.agent =
      this.target.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  private post(body: unknown): Promise<unknown> {
    if (!this.tracing) return this.postUntraced(body);
    const batch = Array.isArray(body) ? (body as RpcCall[]) : undefined;
    const method = batch ? 'batch' : (body as RpcCall).method;
    return this.tracing.span(
      `jsonrpc ${method}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'rpc.system': 'jsonrpc',
          'rpc.method': method,
          // D-139: the redacted URL only.
          'server.address': this.node,
          ...(batch ? { 'rpc.jsonrpc.batch_methods': batch.map((call) => call.method) } : {}),
        },
      },
      async (span) => {
        const answer = await this.postUntraced(body);
        const code = (answer as RpcResponse | undefined)?.error?.code;
        if (typeof code === 'number') span.setAttribute('rpc.jsonrpc.error_code', code);
        return answer;
      },
    );
  }

  private async postUntraced(body: unknown): Promise<unknown> {
    const payload = JSON.stringify(body);
    let answer: { status: number; text: string };
    let arrived = false;
    try {
      answer = await this.exchange(payload).catch((error: ExchangeError) => {
        arrived = Boolean(error.connected);
        // A kept-alive socket the node closed meanwhile: retry once on a fresh one (Node's documented pattern).
        if (error.reused) return this.exchange(payload);
        throw error;
      });
    } catch (error) {
      const { code, connected } = error as ExchangeError & NodeJS.ErrnoException;
      this.onFailure?.(code === 'ETIMEDOUT' ? 'timeout' : 'unreachable');
      // D-139: only the error code; Node's own text may name the host.
      throw new UpstreamUnavailableError(
        `the chain node is unreachable (${code ?? 'connection failed'})`,
        this.node,
        arrived || Boolean(connected),
      );
    }
    try {
      return JSON.parse(answer.text);
    } catch {
      this.onFailure?.('bad_answer');
      throw new UpstreamUnavailableError(
        `the chain node answered HTTP ${answer.status} with a body that is not JSON`,
        this.node,
      );
    }
  }

  /** One POST; a failure on a reused socket is marked `reused`. */
  private exchange(payload: string): Promise<{ status: number; text: string }> {
    const lib = this.target.protocol === 'https:' ? https : http;
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    return new Promise((resolve, reject) => {
      let connected = false;
      // D-140: one deadline for the whole exchange (connect, send, answer), so a node that accepts and never
      // answers, or answers a byte at a time, cannot hold a caller (and an account's turn) for ever.
      const deadline = setTimeout(
        () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
        this.timeoutMs,
      );
      const fail = (error: ExchangeError) => {
        clearTimeout(deadline);
        error.connected = connected;
        reject(error);
      };
      const req = lib.request(this.target, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
      });
      req.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true));
      });
      req.on('error', (error: ExchangeError) => {
        error.reused = req.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
        fail(error);
      });
      req.end(payload);
    });
  }

  /** Sends one request and returns the whole response (result or error). */
  async send(method: string, params: unknown[] = []): Promise<RpcResponse> {
    if (this.beforeSend) {
      const refusal = await this.beforeSend({ method, params });
      if (refusal) return { jsonrpc: '2.0', id: this.nextId++, error: refusal };
    }
    return (await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params })) as RpcResponse;
  }

  /** Calls `method` and returns its result, or throws UpstreamRpcError. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const response = await this.send(method, params);
    if (response.error) throw new UpstreamRpcError(response.error);
    return response.result as T;
  }

  /** Sends calls as one JSON-RPC batch; responses come back in call order. */
  async batch(calls: readonly RpcCall[]): Promise<RpcResponse[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    const answer = await this.post(body);
    if (!Array.isArray(answer)) {
      this.onFailure?.('bad_answer');
      throw new UpstreamUnavailableError('the chain node did not answer the batch with an array', this.node);
    }
    const byId = new Map((answer as RpcResponse[]).map((r) => [r.id, r]));
    return body.map(
      (request) =>
        byId.get(request.id) ?? {
          jsonrpc: '2.0',
          id: request.id,
          error: { code: -32603, message: 'no response in batch' },
        },
    );
  }

  /** Calls each method in one batch and returns the results, or throws the first error. */
  async batchResults<T = unknown>(calls: readonly RpcCall[]): Promise<T[]> {
    const responses = await this.batch(calls);
    return responses.map((r) => {
      if (r.error) throw new UpstreamRpcError(r.error);
      return r.result as T;
    });
  }
}
