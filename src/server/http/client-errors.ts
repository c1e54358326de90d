/**
 * D-206: the answer to a request that fails below the routes, in Node's HTTP parser (Fastify's
 * `clientErrorHandler`): a malformed request (400), headers over Node's size limit (431) and a request not
 * received in full within the D-204 time-out (408). Each is answered in the surfaces' `{error, code}` shape with
 * code INVALID_REQUEST, which every REST contract lists, and the D-207 headers; the status keeps what HTTP names
 * the failure, as Fastify's own client errors do (error-handler.ts). The connection is closed: the parser cannot
 * find where the next request would start.
 */
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { ErrorCode } from './error-codes.ts';
import { securityHeaders } from './security-headers.ts';

/** What a client error is answered with: the status and the body. */
type Answer = { status: 400 | 408 | 431; error: string; code: ErrorCode };

/** A parser or time-out error of Node's HTTP server; llhttp's carry a `reason` (e.g. "Invalid header token"). */
type ParserError = Pick<ConnectionError, 'code' | 'message'> & { reason?: string };

/** The answer to `error`. */
export function clientErrorAnswer(error: ParserError, requestTimeoutMs: number): Answer {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      error: `the request was not received in full within ${requestTimeoutMs} ms; the connection is closed`,
      code: ErrorCode.INVALID_REQUEST,
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      error: `the request line and headers are larger than ${maxHeaderSize} bytes`,
      code: ErrorCode.INVALID_REQUEST,
    };
  }
  // llhttp's reason names what it found wrong, never the bytes.
  return {
    status: 400,
    error: `malformed HTTP request: ${error.reason ?? error.message}`,
    code: ErrorCode.INVALID_REQUEST,
  };
}

/** The raw HTTP/1.1 response carrying `answer`. */
export function clientErrorResponse(answer: Answer, hstsMaxAge: number): string {
  const { status } = answer;
  const body = JSON.stringify({ error: answer.error, code: answer.code });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...securityHeaders(hstsMaxAge),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`;
}

/** Whether a response already started on `socket` (Node's own client-error answer checks the same). */
function responseStarted(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
}

/** Whether `code` is one of an HTTP request (the parser's `HPE_*`, the D-204 time-out) rather than of the transport. */
const answerable = (code: string | undefined) =>
  code === 'ERR_HTTP_REQUEST_TIMEOUT' || code?.startsWith('HPE_') === true;

/** How long a client-error answer may take to flush before the connection is cut regardless, in ms. */
const FLUSH_GRACE_MS = 1_000;

/** Fastify's `clientErrorHandler` for an origin; `this` is the origin. */
export function clientErrorHandler(
  requestTimeoutMs: number,
  hstsMaxAge: number,
): (this: FastifyInstance, error: ConnectionError, socket: Socket) => void {
  return function answerClientError(error, socket) {
    if (socket.destroyed) return;
    // A transport error (a reset, a TLS handshake that failed or timed out, D-204) has nobody to answer in HTTP:
    // Node's HTTPS server hands those to this handler too.
    if (!answerable(error.code) || !socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error, requestTimeoutMs);
    this.log.debug({ code: error.code }, `client error answered ${answer.status}`);
    socket.write(clientErrorResponse(answer, hstsMaxAge));
    // Closed once the answer is flushed, so a client still trickling bytes does not keep the connection; one that
    // does not read is cut after a grace.
    socket.destroySoon();
    setTimeout(() => socket.destroy(), FLUSH_GRACE_MS).unref();
  };
}
