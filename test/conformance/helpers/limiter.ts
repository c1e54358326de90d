// Loopback HTTP servers that rate-limit like the reference (src/server/http/rate-limit.ts): per client IP, a
// fixed window of one second from its first request holding `perSecond` requests; past it, 429 with Retry-After
// (whole seconds, at least 1) and the {error} body (D-022), or, for a JSON-RPC endpoint, the JSON-RPC error
// -32005 "limit exceeded" inside the 429 (D-024).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export type Arrival = { at: number; status: number; path: string };

/** A running server and what it saw. */
export type TestServer = { url: URL; arrivals: Arrival[]; close(): Promise<void> };

/** Answers one request: status, body and headers. */
export type Answerer = (
  req: http.IncomingMessage,
  body: string,
) => {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
};

/** Starts a loopback server answering with `answer`, recording each arrival. */
export async function startServer(answer: Answerer): Promise<TestServer> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const out = answer(req, body);
      arrivals.push({ at: Date.now(), status: out.status, path: req.url ?? '' });
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers }).end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An answerer allowing `perSecond` requests per IP per window, answering the others 429 in `shape`. */
export function limiting(perSecond: number, shape: 'rest' | 'json-rpc', ok: Answerer = okAnswer): Answerer {
  const windows = new Map<string, { start: number; count: number }>();
  return (req, body) => {
    const ip = req.socket.remoteAddress ?? '';
    const now = Date.now();
    let window = windows.get(ip);
    if (!window || now - window.start >= 1000) {
      window = { start: now, count: 0 };
      windows.set(ip, window);
    }
    window.count += 1;
    if (window.count <= perSecond) return ok(req, body);
    const seconds = Math.max(1, Math.ceil((window.start + 1000 - now) / 1000));
    const headers = { 'retry-after': String(seconds) };
    const message = `rate limit exceeded: ${perSecond} requests per second per IP; retry in ${seconds} s`;
    return shape === 'rest'
      ? { status: 429, body: { error: message }, headers }
      : {
          status: 429,
          body: { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit exceeded', data: message } },
          headers,
        };
  };
}

/** 200 with a small JSON body. */
export const okAnswer: Answerer = () => ({ status: 200, body: { ok: true } });
