// Shared helpers of the /ws tests (D-012, D-016): a real `ws` client over real TLS to the in-process
// reference stack, credentials issued through the real admin API.
import { expect } from 'vitest';
import WebSocket from 'ws';
import { request } from '../../../conformance/http.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import type { Stack } from '../../../src/server/app.ts';
import { startTestStack } from '../../support/stack.ts';

/**
 * Starts the reference stack in this process (test/support/stack.ts) with `env` over the /rpc and admin limits
 * lifted, and returns it with a target for the helpers; the server side stays reachable.
 */
export async function startWsStack(
  env: Record<string, string> = {},
): Promise<{ target: Target; stack: Stack; close(): Promise<void> }> {
  const started = await startTestStack({ env: { SVC_RATE_LIMIT_RPC: '0', SVC_RATE_LIMIT_ADMIN: '0', ...env } });
  const target: Target = {
    kind: 'reference',
    base: started.target.base,
    caCert: started.stack.tls.caCert,
    capabilities: new Set(['base', 'admin']),
    adminToken: started.ready.adminToken!,
  };
  return { target, stack: started.stack, close: started.close };
}

/** Issues an API key through the admin API; returns its id and token. */
export async function issueApiKey(target: Target, permissions: string[]): Promise<{ id: string; token: string }> {
  const created = await request(target, 'admin/v1/api-keys', {
    body: { name: 'ws', permissions },
    headers: { authorization: `Bearer ${target.adminToken}` },
  });
  expect(created.status).toBe(201);
  return created.json as { id: string; token: string };
}

/** Opens /ws; resolves with the socket, or with the HTTP status of a refused upgrade. */
export function openWs(
  target: Target,
  headers: Record<string, string>,
  options: WebSocket.ClientOptions = {},
): Promise<WebSocket | number> {
  const url = new URL('ws', target.base!.href.replace(/^https/, 'wss'));
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, ca: target.caCert, ...options });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', reject);
  });
}

/** Opens /ws with a bearer token and expects the upgrade to succeed. */
export async function openWithToken(
  target: Target,
  token: string,
  options: WebSocket.ClientOptions = {},
): Promise<WebSocket> {
  const socket = await openWs(target, { authorization: `Bearer ${token}` }, options);
  if (typeof socket === 'number') throw new Error(`the /ws upgrade was refused with HTTP ${socket}`);
  return socket;
}

/** The next text frame, parsed. */
export function nextFrame(socket: WebSocket): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onClose = (code: number) => reject(new Error(`the socket closed (${code}) before a frame came`));
    socket.once('message', (data: Buffer) => {
      socket.off('close', onClose);
      resolve(JSON.parse(data.toString()));
    });
    socket.once('close', onClose);
  });
}

/** Resolves with the close code and reason once the socket is closed. */
export function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve({ code: -1, reason: 'already closed' });
  return new Promise((resolve) =>
    socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
  );
}

/** Sends a request and waits for the response with its id. */
export function call(
  socket: WebSocket,
  id: number,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { id?: number };
      if (frame.id === id) {
        socket.off('message', onMessage);
        resolve(frame as never);
      }
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

/** Sends an admin API request with the target's admin token. */
export async function admin(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await request(target, `admin/v1/${path}`, {
    method,
    ...(body === undefined ? {} : { body }),
    headers: { authorization: `Bearer ${target.adminToken}` },
  });
  return { status: res.status, json: res.json };
}
