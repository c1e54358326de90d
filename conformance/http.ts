/**
 * The harness's HTTPS client: real TLS to the target (trusting its extra CA), reporting the negotiated
 * key-exchange group so checks can see X25519MLKEM768 on the wire. Requests go through the run's pacer
 * (conformance/pacing.ts, D-180, D-234): each retry after a rate-limit answer is noted in the running check's
 * activity, and the run's exchange listener sees every attempt.
 */
import http from 'node:http';
import https from 'node:https';
import type { CheckRequest } from './catalogue.ts';
import { type Attempt, Pacer, weightOf } from './pacing.ts';
import { currentActivity, waitingFor } from './progress.ts';
import { currentRunScope, exchangeOf } from './run-scope.ts';
import type { Target } from './targets/target.ts';

/** A response as checks see it. */
export type HttpResult = {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** The TLS group negotiated for the connection (e.g. X25519MLKEM768). */
  tlsGroup: string | undefined;
  /** The request, for reports. */
  request: CheckRequest;
};

/** Options of one request. */
export type HttpOptions = {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (serialised) or a raw string. */
  body?: unknown;
  /** TLS groups to offer (default: Node's, which lead with X25519MLKEM768). */
  groups?: string;
  timeoutMs?: number;
  /** Headers made afresh for each attempt (a signature over the current time), over `headers`. */
  sign?: () => Record<string, string>;
  /** Wait for the origin's pace first (default true). */
  paced?: boolean;
  /** Wait out and resend a rate-limit answer (default true). */
  retryLimited?: boolean;
};

/** For a check that probes a rate limit itself: sent at once, and its 429s returned as they are. */
export const PROBE_LIMIT = { paced: false, retryLimited: false } as const satisfies HttpOptions;

/**
 * Sends one HTTPS request (plain http only for a loopback node given by `--rpc`, D-192) to `url` (absolute, or
 * relative to the target's base) through the run's pacer (D-180, D-234): paced by the origin's gate, and a
 * rate-limit answer waited out and sent again unless `retryLimited` is false. Outside a run (tests, probes) the
 * library's pacer neither paces nor resends. The run's exchange listener is told every attempt.
 */
export async function request(target: Target, url: string | URL, options: HttpOptions = {}): Promise<HttpResult> {
  const full = new URL(url, target.base);
  const activity = currentActivity();
  const scope = currentRunScope();
  const pacer = scope?.pacer ?? Pacer.library();
  let sent = prepare(options);
  const onExchange = scope?.onExchange?.bind(scope);
  return pacer.send({
    origin: full.origin,
    label: `${sent.method} ${full.pathname}`,
    weight: weightOf(options.body),
    ...(options.paced === false ? { paced: false } : {}),
    ...(options.retryLimited === false ? { resend: false } : {}),
    ...(activity ? { signal: activity.signal, note: (line: string) => activity.retries.push(line) } : {}),
    waiting: waitingFor,
    send: () => {
      if (options.sign) sent = prepare({ ...options, headers: { ...options.headers, ...options.sign() } });
      return send(target, full, sent, options, activity?.signal);
    },
    ...(onExchange
      ? {
          attempted: (attempt: Attempt<HttpResult>) =>
            onExchange(exchangeOf('hand-written', activity?.name, { ...sent, url: full.href }, attempt)),
        }
      : {}),
  });
}

/** One attempt's request line, headers and body text. */
type Prepared = { method: string; headers: Record<string, string>; body: string | undefined };

function prepare(options: HttpOptions): Prepared {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(body !== undefined && typeof options.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  return { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body };
}

/** One exchange, no retry. */
function send(
  target: Target,
  full: URL,
  prepared: Prepared,
  options: HttpOptions,
  signal: AbortSignal | undefined,
): Promise<HttpResult> {
  const { method, headers, body } = prepared;
  const record: CheckRequest = {
    method,
    url: full.href,
    headers,
    ...(body !== undefined ? { body: options.body } : {}),
  };
  // Plain http reaches only a loopback JSON-RPC node (conformance/targets/rpc.ts); it has no TLS group.
  const transport = full.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      full,
      {
        method,
        headers,
        ca: target.caCert,
        ...(options.groups ? { ecdhCurve: options.groups } : {}),
        agent: false,
        timeout: options.timeoutMs ?? 15_000,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const socket = res.socket as Partial<import('node:tls').TLSSocket>;
          resolve({
            status: res.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
            ),
            text,
            json,
            tlsGroup: (socket.getEphemeralKeyInfo?.() as { name?: string } | null)?.name,
            request: record,
          });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${full.href} within ${options.timeoutMs ?? 15_000} ms`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The chain JSON-RPC endpoint of `target`: the node given by `--rpc` (D-192), else `{base_url}/rpc`. */
export function rpcUrl(target: Target): URL {
  if (target.rpc) return target.rpc;
  if (!target.base) throw new Error('the target has no chain JSON-RPC endpoint (no base URL, no --rpc)');
  return new URL('rpc', target.base);
}

/** Calls a JSON-RPC method on the target's chain endpoint ({@link rpcUrl}). */
export function rpc(
  target: Target,
  method: string,
  params: unknown[] = [],
  id: number | string = 1,
): Promise<HttpResult> {
  return request(target, rpcUrl(target), { body: { jsonrpc: '2.0', id, method, params } });
}
