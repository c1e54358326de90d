/**
 * Forwards one exchange to its upstream unchanged and keeps bounded copies of both bodies for the judges
 * (D-250): request bytes go on as they come; the answer is held up to the bound so that its verdict can go in
 * `X-Svckit-Violations` (and, with `--strict`, replace it), and past the bound — or when every held copy together
 * reaches the proxy's budget — what was held is sent and the rest streams through, not judged.
 */
import http from 'node:http';
import https from 'node:https';

/** Headers of one hop only (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The headers of `raw` without the hop-by-hop ones (and those the Connection header names). */
export function endToEnd(raw: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(raw.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  return out;
}

/** The bytes of bodies held at once across every exchange, and the bound of one body (D-250). */
export class HoldBudget {
  private held = 0;
  constructor(
    readonly perBody: number,
    readonly total: number,
  ) {}
  /** Takes `n` bytes for a copy that already holds `had`; false when the copy must stop here. */
  take(had: number, n: number): boolean {
    if (had + n > this.perBody || this.held + n > this.total) return false;
    this.held += n;
    return true;
  }
  /** Gives back what a finished copy held. */
  give(n: number): void {
    this.held -= n;
  }
}

/** A bounded copy of a body: its first bytes, and whether it was cut. */
export class BodyCopy {
  private chunks: Buffer[] = [];
  size = 0;
  cut = false;
  constructor(private readonly budget: HoldBudget) {}
  /** Adds `chunk`; false (and cut) once the bound or the budget is reached. */
  add(chunk: Buffer): boolean {
    if (this.cut) return false;
    if (!this.budget.take(this.size, chunk.length)) {
      this.cut = true;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }
  /** The bytes held. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  /** Frees the copy. */
  release(): void {
    this.budget.give(this.size);
    this.chunks = [];
    this.size = 0;
  }
}

/** Where and how the upstream is reached. */
export interface Upstream {
  url: URL;
  agent: http.Agent;
  timeoutMs: number;
}

/** A keep-alive agent for `url`'s scheme, trusting `caCert` besides the system CAs. */
export function upstreamAgent(url: URL, caCert: string | undefined, sockets: number): http.Agent {
  return url.protocol === 'https:'
    ? new https.Agent({ keepAlive: true, maxSockets: sockets, ...(caCert ? { ca: caCert } : {}) })
    : new http.Agent({ keepAlive: true, maxSockets: sockets });
}

/** The answer as the upstream gave it, its body held (whole, or up to the bound when `cut`). */
export interface HeldAnswer {
  response: http.IncomingMessage;
  held: BodyCopy;
  /** True when the whole body is in `held`; false when the rest is still to stream from `response`. */
  whole: boolean;
}

/** The upstream URL of a request: its path and query under the upstream's base path. */
export function upstreamUrl(upstream: URL, requestTarget: string): URL {
  const base = upstream.pathname.replace(/\/$/, '');
  return new URL(`${base}${requestTarget.startsWith('/') ? requestTarget : `/${requestTarget}`}`, upstream.origin);
}

/**
 * Sends the client's request on to the upstream as it comes, copying up to the bound into `copy`, and resolves
 * with the answer once its body is whole or past the bound. Rejects when the upstream gives no answer.
 */
export function forward(
  upstream: Upstream,
  req: http.IncomingMessage,
  copy: BodyCopy,
  budget: HoldBudget,
): Promise<HeldAnswer> {
  const url = upstreamUrl(upstream.url, req.url ?? '/');
  const headers = { ...endToEnd(req.headers), host: upstream.url.host };
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const out = send(url, { method: req.method, headers, agent: upstream.agent, timeout: upstream.timeoutMs });
    out.on('timeout', () => out.destroy(new Error(`no answer within ${upstream.timeoutMs} ms`)));
    out.on('response', (response) => {
      const held = new BodyCopy(budget);
      // An event stream never ends on its own: it is streamed from its first byte.
      const streaming = /^text\/event-stream/i.test(String(response.headers['content-type'] ?? ''));
      if (streaming) {
        held.cut = true;
        resolve({ response, held, whole: false });
        return;
      }
      const onData = (chunk: Buffer) => {
        if (held.add(chunk)) return;
        response.off('data', onData);
        response.off('end', onEnd);
        response.pause();
        response.unshift(chunk);
        resolve({ response, held, whole: false });
      };
      const onEnd = () => resolve({ response, held, whole: true });
      response.on('data', onData);
      response.on('end', onEnd);
      response.on('error', reject);
    });
    out.on('error', reject);
    // The request body goes on chunk by chunk, with backpressure; the copy takes what fits the bound.
    req.on('data', (chunk: Buffer) => {
      copy.add(chunk);
      if (!out.write(chunk)) req.pause();
    });
    out.on('drain', () => req.resume());
    req.on('end', () => out.end());
    req.on('error', (error) => out.destroy(error));
    req.on('close', () => {
      if (!req.complete) out.destroy(new Error('the client closed the request before its end'));
    });
  });
}
