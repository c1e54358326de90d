/**
 * The harness's HTTPS webhook receiver (the harness runs an HTTPS receiver): it records every
 * delivery exactly as it arrived (raw body, headers, arrival time on the target's clock) and answers as the
 * running check scripts it (e.g. 500 then 200), or holds the answer past the 10-second limit.
 * Its certificate comes from its own CA (receiver-tls.ts), which the target must trust (D-102).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TlsMaterial } from '../../src/server/tls/dev-certificates.ts';
import { waitingFor } from '../progress.ts';

/** One delivery as received. */
export type Received = {
  path: string;
  method: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  rawBody: string;
  /** Arrival time on the clock the receiver was given (ms). */
  receivedAt: number;
  /** How many deliveries with this X-SVC-Delivery arrived before this one, plus one. */
  nth: number;
  /** What the receiver answered (`hang`: held past the limit). */
  answered: number | 'hang';
};

/** How to answer a delivery: a status, or hold it (`hang`) until released or closed. */
export type Answer = number | 'hang';

/** Decides each answer of one path. */
export type Responder = (delivery: Received) => Answer;

/** An HTTPS server that records deliveries per path. */
export class WebhookReceiver {
  private readonly received: Received[] = [];
  private readonly responders = new Map<string, Responder>();
  private readonly hung = new Set<import('node:http').ServerResponse>();
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: https.Server,
    private readonly host: string,
    private readonly clock: () => number,
  ) {}

  /** Listens on `listenHost:port` (0: ephemeral); URLs name `publicHost` (what the target can reach). */
  static async start(options: {
    tls: Pick<TlsMaterial, 'cert' | 'key'>;
    publicHost?: string;
    listenHost?: string;
    port?: number;
    clock?: () => number;
  }): Promise<WebhookReceiver> {
    let self: WebhookReceiver | undefined;
    const server = https.createServer({ cert: options.tls.cert, key: options.tls.key }, (req, res) =>
      self!.handle(req, res),
    );
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.listenHost ?? '127.0.0.1', resolve);
    });
    server.unref();
    self = new WebhookReceiver(server, options.publicHost ?? '127.0.0.1', options.clock ?? Date.now);
    return self;
  }

  /** The HTTPS URL of `path` (e.g. `/hooks/abc`). */
  url(path: string): string {
    const { port } = this.server.address() as AddressInfo;
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${port}${path}`;
  }

  /** Scripts the answers of `path` (default: 200 to everything). */
  respond(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  /** The deliveries received on `path` (every path when absent), in arrival order. */
  deliveries(path?: string): Received[] {
    return path === undefined ? [...this.received] : this.received.filter((r) => r.path === path);
  }

  /** Waits until `ready(deliveries of path)` holds; throws after `timeoutMs` of real time. */
  waitFor(path: string, ready: (received: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> {
    // D-181: the running check's deadline message names this wait.
    return waitingFor(`deliveries on ${this.url(path)}`, this.poll(path, ready, timeoutMs));
  }

  private async poll(path: string, ready: (received: Received[]) => boolean, timeoutMs: number): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = this.deliveries(path);
      if (ready(now)) return now;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `the receiver got ${now.length} deliveries on ${path}, not what was expected, within ${timeoutMs} ms`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** Answers every held request with `status`. */
  releaseHung(status = 200): void {
    for (const res of this.hung) if (!res.writableEnded) res.writeHead(status).end();
    this.hung.clear();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.hung.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      const path = (req.url ?? '/').split('?')[0]!;
      const id = headers['x-svc-delivery'];
      const nth = this.received.filter((r) => r.headers['x-svc-delivery'] === id).length + 1;
      const delivery: Received = {
        path,
        method: req.method ?? '',
        headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: this.clock(),
        nth,
        answered: 200,
      };
      const responder = this.responders.get(path);
      delivery.answered = responder ? responder(delivery) : 200;
      this.received.push(delivery);
      if (delivery.answered === 'hang') this.hung.add(res);
      else res.writeHead(delivery.answered, { 'content-type': 'text/plain' }).end('ok');
      for (const wake of [...this.waiters]) {
        this.waiters.delete(wake);
        wake();
      }
    });
  }
}
