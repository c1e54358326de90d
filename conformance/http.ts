/**
 * The harness's HTTPS client: real TLS to the target (trusting its extra CA), reporting the negotiated
 * key-exchange group so checks can see X25519MLKEM768 on the wire.
 */
import https from 'node:https';
import type { CheckRequest } from './catalogue.ts';
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
};

/** Sends one HTTPS request to `url` (absolute, or relative to the target's base). */
export function request(target: Target, url: string | URL, options: HttpOptions = {}): Promise<HttpResult> {
  const full = new URL(url, target.base);
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
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const record: CheckRequest = {
    method,
    url: full.href,
    headers,
    ...(body !== undefined ? { body: options.body } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = https.request(
      full,
      {
        method,
        headers,
        ca: target.caCert,
        ...(options.groups ? { ecdhCurve: options.groups } : {}),
        agent: false,
        timeout: options.timeoutMs ?? 15_000,
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
          const socket = res.socket as import('node:tls').TLSSocket;
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

/** Calls a JSON-RPC method on `{base_url}/rpc`. */
export function rpc(
  target: Target,
  method: string,
  params: unknown[] = [],
  id: number | string = 1,
): Promise<HttpResult> {
  return request(target, 'rpc', { body: { jsonrpc: '2.0', id, method, params } });
}
