// Helpers of the edge tests (D-204 to D-207): raw TLS sockets to an origin of the in-process reference stack,
// bound to a chosen loopback address (127.0.0.1, 127.0.0.2, ... are all this host on Linux), so that a test can
// speak as several client IPs, send malformed or trickled requests, and read the raw answer.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';

/** One origin of the stack as the tests reach it. */
export type Origin = { name: string; app: FastifyInstance; port: number; ca: string };

/** The origin `app` of a listening stack. */
export const originOf = (name: string, app: FastifyInstance, ca: string): Origin => ({
  name,
  app,
  port: (app.server.address() as AddressInfo).port,
  ca,
});

/** Every client socket the helpers opened and that is not closed yet. */
const opened = new Set<net.Socket>();

/** Tracks `socket` until it closes, for {@link destroyAll}. */
export function track<S extends net.Socket>(socket: S): S {
  opened.add(socket);
  socket.once('close', () => opened.delete(socket));
  return socket;
}

/** Destroys every client socket still open (after a test, whether it passed or not). */
export function destroyAll(): void {
  for (const socket of opened) socket.destroy();
}

/** Opens a TLS connection from `localAddress`; resolves with the socket once secure, or 'refused' when closed before. */
export function connect(origin: Origin, localAddress = '127.0.0.1'): Promise<tls.TLSSocket | 'refused'> {
  return new Promise((resolve) => {
    const tcp = track(net.connect({ host: '127.0.0.1', port: origin.port, localAddress }));
    const socket = track(tls.connect({ socket: tcp, host: '127.0.0.1', ca: origin.ca }));
    socket.once('secureConnect', () => resolve(socket));
    // Before the handshake completes, an error or a close can only mean the server turned the connection away.
    socket.once('error', () => resolve('refused'));
    socket.once('close', () => resolve('refused'));
  });
}

/** A raw answer: the status, the headers (lower-case names) and the JSON body. */
export type RawAnswer = { status: number; headers: Record<string, string>; body: unknown; text: string };

/** Parses the first HTTP/1.1 response in `raw`. */
export function parseAnswer(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = raw.slice(end + 4);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}

/**
 * Reads everything `socket` receives until the server closes it; resolves with the text and when it closed, or
 * with `closedAt` undefined when the server had not closed it within `withinMs` (the socket is then destroyed).
 */
export function readUntilClosed(
  socket: net.Socket,
  withinMs = 10_000,
): Promise<{ raw: string; closedAt: number | undefined }> {
  return new Promise((resolve) => {
    let raw = '';
    const deadline = setTimeout(() => {
      resolve({ raw, closedAt: undefined });
      socket.destroy();
    }, withinMs);
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(deadline);
      resolve({ raw, closedAt: Date.now() });
    });
  });
}

/** Sends `request` (raw bytes) on a new connection and resolves with the answer once the server closes it. */
export async function exchange(origin: Origin, request: string, localAddress = '127.0.0.1'): Promise<RawAnswer> {
  const socket = await connect(origin, localAddress);
  if (socket === 'refused') throw new Error(`${origin.name} refused a connection from ${localAddress}`);
  const done = readUntilClosed(socket);
  socket.write(request);
  return parseAnswer((await done).raw);
}

/** A GET of `path` with Connection: close. */
export const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`;

/** How many connections `origin`'s server holds open. */
export const openConnections = (origin: Origin): Promise<number> =>
  new Promise((resolve, reject) =>
    origin.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

/** Splits `raw` into the HTTP/1.1 responses it holds, one after the other (each with a Content-Length). */
export function parseAnswers(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = Buffer.from(raw);
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const head = rest.subarray(0, end).toString();
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    answers.push(parseAnswer(rest.subarray(0, end + 4 + length).toString()));
    rest = rest.subarray(end + 4 + length);
  }
  return answers;
}
