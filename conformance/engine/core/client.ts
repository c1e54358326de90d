/**
 * The engine's HTTPS client: one keep-alive connection pool per run (node:https, no extra dependency), so
 * thousands of generated requests reuse a few TLS connections, and a bounded number run at once, through the
 * run's pacer (D-180, D-234) like the hand-written checks' requests.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { type Attempt, Pacer, weightOf } from '../../pacing.ts';
import { currentRunScope, exchangeOf } from '../../run-scope.ts';

/** A request as the engine stores it in cases and case files (credentials are redacted in reports). */
export interface WireRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  /** The exact body text sent, if any. */
  body?: string;
}

/** A response as the checks see it. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  /** Time on the wire of the answer, in ms (not the pacing before it). */
  durationMs?: number;
}

/** What the sender knows of a request beyond its wire form. */
export interface SendMeta {
  /** The check it serves (a run's exchange listener names it). */
  check?: string;
}

/** A pooled client; `close()` ends its connections. */
export interface EngineClient {
  /** Sends `request` through the pacer: paced per origin, a rate-limit answer waited out and sent again. */
  send(request: WireRequest, meta?: SendMeta): Promise<WireResponse>;
  close(): void;
}

/** Largest response body kept (bytes); a longer one is cut and counted as not JSON. */
const MAX_BODY = 4 * 1024 * 1024;

/**
 * A keep-alive client trusting `caCert` (PEM) besides the system CAs, at most `connections` sockets. Its requests
 * go through `pacer` (default: the pacer of the run it is made in, else the library's, which neither paces nor
 * resends; D-234): every request to an origin waits while a rate-limit answer pauses it, so its connections
 * never resend together. The run's exchange listener is told every attempt.
 */
export function engineClient(
  options: { caCert?: string; connections?: number; timeoutMs?: number; pacer?: Pacer } = {},
): EngineClient {
  const plain = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 16 });
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.connections ?? 16,
    ...(options.caCert ? { ca: options.caCert } : {}),
  });
  const timeout = options.timeoutMs ?? 15_000;
  const madeIn = currentRunScope();
  const pacer = options.pacer ?? madeIn?.pacer ?? Pacer.library();
  const once = (request: WireRequest): Promise<WireResponse> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const headers = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      // Plain http only for loopback test servers; every surface of the service is HTTPS.
      const secure = request.url.startsWith('https:');
      const send = secure ? https.request : http.request;
      const req = send(
        request.url,
        { method: request.method, headers, agent: secure ? agent : plain, timeout },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_BODY) chunks.push(c);
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            if (size <= MAX_BODY && text !== '') {
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
            }
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
            resolve({ status: res.statusCode ?? 0, headers: out, text, json, durationMs: performance.now() - started });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${request.url} within ${timeout} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  return {
    close: () => {
      agent.destroy();
      plain.destroy();
    },
    send: (request, meta) => {
      const url = new URL(request.url);
      const onExchange = (currentRunScope() ?? madeIn)?.onExchange;
      return pacer.send({
        origin: url.origin,
        label: `${request.method} ${url.pathname}`,
        weight: weightOf(request.body),
        send: () => once(request),
        ...(onExchange
          ? {
              attempted: (attempt: Attempt<WireResponse>) =>
                onExchange(exchangeOf('generated', meta?.check, request, attempt)),
            }
          : {}),
      });
    },
  };
}

/** Runs `work` over `items` with at most `concurrency` at once, results in input order. */
export async function pooled<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return out;
}
