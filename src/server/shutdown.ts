/**
 * Graceful shutdown of `svckit serve` (D-264). On SIGTERM or SIGINT, in this order:
 * 1. `/readyz` answers 503 on every origin at once, and every listener stops accepting connections;
 * 2. the requests in flight finish; every answer sent from now on carries `Connection: close`, so a kept-alive
 *    connection ends after its next answer; once no request is in flight (and DRAIN_IDLE_GRACE_MS has passed)
 *    idle connections are closed; /ws sockets are closed with 1001 (going away);
 * 3. meanwhile the webhook dispatcher stops claiming and waits for its attempts in flight and records them;
 * 4. the transfer engine finishes the transfers it is storing and broadcasting;
 * 5. the stack closes: the ledger's loops, the chain (the leader lease is given up), the database, Redis.
 * Steps 1 to 4 share one bound, SVC_SHUTDOWN_TIMEOUT_MS from the signal; past it the connections still open
 * are closed, attempts still in flight are released for another instance, and the summary line says so.
 */
import { Server as NetServer, type Socket } from 'node:net';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';

/** D-264: idle kept-alive connections stay open this long after the drain began, for an answer with `Connection: close`. */
export const DRAIN_IDLE_GRACE_MS = 500;

/** D-264: how often the drain looks at its requests and connections. */
const DRAIN_POLL_MS = 25;

type Listener = HttpServer | HttpsServer;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The drain state of the stack's listeners: readiness, requests in flight, open connections (D-264). */
export class Drain {
  private active = false;
  private readonly servers = new Set<Listener>();
  private readonly requests = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();

  /** True from the start of the shutdown: `/readyz` answers 503. */
  get draining(): boolean {
    return this.active;
  }

  /** Requests in flight on the watched listeners. */
  get inFlight(): number {
    return this.requests.size;
  }

  /** Open connections of the watched listeners (/ws included). */
  get connections(): number {
    return this.sockets.size;
  }

  /** Counts the requests and connections of `server`; during the drain every answer closes its connection. */
  watch(server: Listener): void {
    this.servers.add(server);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      this.requests.add(response);
      response.once('close', () => this.requests.delete(response));
      if (this.active) closeAfter(response);
    });
  }

  /** Step 1: readiness fails from now on, and no listener accepts another connection. */
  begin(): void {
    this.active = true;
    for (const response of this.requests) closeAfter(response);
    // net's close stops accepting only; the HTTP server's own close() would also drop idle connections at once,
    // and a request a client is writing on one of them at that moment would meet a reset.
    for (const server of this.servers) if (server.listening) NetServer.prototype.close.call(server);
  }

  /**
   * Step 2: waits until every connection has ended or `deadline` (performance.now()) passed; idle connections
   * are closed once no request is in flight and the grace has passed. True when everything ended in time.
   */
  async settle(deadline: number, graceMs = DRAIN_IDLE_GRACE_MS): Promise<boolean> {
    const graceEnds = performance.now() + graceMs;
    while (this.sockets.size > 0) {
      const now = performance.now();
      if (now >= deadline) return false;
      if (this.requests.size === 0 && now >= graceEnds)
        for (const server of this.servers) server.closeIdleConnections();
      await sleep(DRAIN_POLL_MS);
    }
    return true;
  }

  /** Past the bound: closes every connection still open. */
  closeAll(): void {
    for (const server of this.servers) server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
  }
}

/** The answer ends its connection (`Connection: close`), unless its headers are already out. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}

/** The parts of the stack the shutdown drives (src/server/app.ts). */
export type Stoppable = {
  drain: Drain;
  /** The server side of the open /ws sockets. */
  wsSockets: { sockets(): Array<{ close(code?: number, reason?: string): void }> };
  webhooks: { dispatcher: { stop(graceMs?: number): Promise<number> } };
  ledger: { engine: { idle(): Promise<void> } };
  close(): Promise<void>;
};

/** What one shutdown did, for its summary line. */
export type ShutdownReport = {
  ms: number;
  /** Requests still in flight and connections still open at the bound, closed unfinished (0 and 0: a clean drain). */
  cutRequests: number;
  cutConnections: number;
  /** Webhook attempts still in flight at the bound, released for another instance. */
  cutAttempts: number;
  /** True when the transfer engine had finished every transfer it was storing or broadcasting within the bound. */
  engineIdle: boolean;
};

/** Resolves true when `work` ends before `deadline` (performance.now()), false at the deadline. */
async function before(deadline: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** D-264: the whole shutdown sequence within `timeoutMs` for steps 1 to 4; then the stack is closed. */
export async function shutdown(stack: Stoppable, timeoutMs: number): Promise<ShutdownReport> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  stack.drain.begin();
  // RFC 6455 1001 "going away": a subscriber reconnects to another instance.
  for (const socket of stack.wsSockets.sockets()) socket.close(1001, 'the server is shutting down');
  // Steps 2 and 3 run side by side; the dispatcher's grace ends at the bound.
  const attempts = stack.webhooks.dispatcher.stop(Math.max(0, deadline - performance.now()));
  const drained = await stack.drain.settle(deadline);
  const cutRequests = drained ? 0 : stack.drain.inFlight;
  const cutConnections = drained ? 0 : stack.drain.connections;
  if (!drained) stack.drain.closeAll();
  const cutAttempts = await attempts;
  const engineIdle = await before(deadline, stack.ledger.engine.idle());
  await stack.close();
  return { ms: Math.round(performance.now() - started), cutRequests, cutConnections, cutAttempts, engineIdle };
}

/** The summary line of one shutdown. */
export function shutdownSummary(report: ShutdownReport, timeoutMs: number): string {
  const clean =
    report.cutRequests === 0 && report.cutConnections === 0 && report.cutAttempts === 0 && report.engineIdle;
  if (clean) return `stopped in ${report.ms} ms; every request in flight finished`;
  const parts = [
    `${report.cutRequests} request(s) in flight and ${report.cutConnections} connection(s) closed unfinished`,
    `${report.cutAttempts} webhook attempt(s) released for another instance`,
    ...(report.engineIdle ? [] : ['the transfer engine was still broadcasting (reconciled at the next start, D-078)']),
  ];
  return `stopped in ${report.ms} ms; not everything finished within the drain bound of ${timeoutMs} ms: ${parts.join('; ')}`;
}
