/**
 * The bounds every origin puts on its connections: how long a client may take to send one request (D-204)
 * and how many connections it may hold, in all and per client IP (D-205). A connection that passes a bound
 * is closed, so a client that trickles bytes or opens connections without end cannot use up the process's
 * file descriptors and shut every other client out.
 */
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import { isIPv4, type Server, type Socket } from 'node:net';

/** The connection settings of the three origins (SVC_REQUEST_TIMEOUT_MS, SVC_MAX_CONNECTIONS*; see src/config.ts). */
export type ConnectionSettings = {
  /** D-204: the longest a client may take for the TLS handshake, and for one request's headers and body, in ms. */
  requestTimeoutMs: number;
  /** D-205: open connections per origin, /ws included. */
  maxConnections: number;
  /** D-205: open connections per client IP per origin, /ws included. */
  maxConnectionsPerIp: number;
};

/**
 * D-204: how often Node looks for requests past their time-out. Its default (30 s) would let a trickled
 * request live up to 30 s past the time-out; each look walks only the requests being received.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * D-204: the idle time of a kept-alive connection between two requests, in ms (Fastify's default, stated here
 * so that every time-out of an origin is in one place).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The HTTPS server options that carry the D-204 time-outs, to merge into the TLS options. */
export function timeoutOptions(settings: ConnectionSettings): HttpsServerOptions {
  const ms = settings.requestTimeoutMs;
  return {
    // Node's default is 120 s: a client that opens TCP and never says ClientHello holds a descriptor that long.
    handshakeTimeout: ms,
    // Headers and body both count from the request's first byte; headers never get longer than the whole.
    headersTimeout: ms,
    requestTimeout: ms,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
}

/**
 * The key a connection is counted under: its peer address, with an IPv4-mapped IPv6 address written as IPv4
 * (a dual-stack listener sees `::ffff:127.0.0.1` for 127.0.0.1). There is no trusted proxy: the peer is the client.
 */
export function peerKey(address: string | undefined): string | undefined {
  if (address?.startsWith('::ffff:') && isIPv4(address.slice(7))) return address.slice(7);
  return address;
}

/** The open connections one or more listeners count together: per client IP, and in all. */
type ConnectionBook = { perIp: Map<string, number>; total: number };

/** The book of each limited server, so a second listener can count in the first one's (D-259). */
const books = new WeakMap<Server, ConnectionBook>();

/**
 * D-205: caps `server`'s open connections in all (Node drops those over it before any work) and per client IP.
 * A connection over the per-IP cap is reset as soon as it is accepted, before the TLS handshake costs anything:
 * the TLS server's own connection listeners see only the connections admitted. With `sharedWith` (a server
 * limited before), both count in one book, so a client holds no more connections through two listeners than
 * through one (D-259).
 */
export function limitConnections(server: Server, settings: ConnectionSettings, sharedWith?: Server): void {
  server.maxConnections = settings.maxConnections;
  const book = (sharedWith && books.get(sharedWith)) ?? { perIp: new Map<string, number>(), total: 0 };
  books.set(server, book);
  const open = book.perIp;
  const admitted = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const key = peerKey(socket.remoteAddress);
    const count = key === undefined ? Number.POSITIVE_INFINITY : (open.get(key) ?? 0);
    if (key === undefined || count >= settings.maxConnectionsPerIp || book.total >= settings.maxConnections) {
      // A reset, not a close: the refused client learns at once, and no TIME_WAIT state stays behind here.
      socket.resetAndDestroy();
      return;
    }
    open.set(key, count + 1);
    book.total += 1;
    socket.once('close', () => {
      book.total -= 1;
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
    for (const listener of admitted) listener.call(server, socket);
  });
}
