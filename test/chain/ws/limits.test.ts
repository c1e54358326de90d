// D-135, D-136, D-137: the bounds of /ws over real TLS with a real `ws` client. Subscriptions per socket and
// sockets per credential and per IP are capped; a client that stops reading is closed with 1008 before the
// server queues more than SVC_WS_MAX_BUFFERED_BYTES for it; a credential revoked (or stripped of
// chain:subscribe) through the admin API loses its sockets within 2 s; upgrade attempts are rate-limited.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { request } from '../../../conformance/http.ts';
import { POLICY_CLOSE } from '../../../src/server/chain/ws/limits.ts';
import { admin, call, closed, issueApiKey, openWithToken, openWs, startWsStack } from './support.ts';

const MAX_BUFFERED = 64 * 1024;
let ws: Awaited<ReturnType<typeof startWsStack>>;
const sockets: WebSocket[] = [];

/** Opens a socket for `token` and closes it after the file. */
async function opened(token: string, options = {}): Promise<WebSocket> {
  const socket = await openWithToken(ws.target, token, options);
  sockets.push(socket);
  return socket;
}

/** Resolves with the close (of a socket, or a close already being listened for), or with "still open" after `ms`. */
const closedWithin = (socket: WebSocket | Promise<{ code: number; reason: string }>, ms: number) =>
  Promise.race([
    socket instanceof Promise ? socket : closed(socket),
    new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms)),
  ]);

beforeAll(async () => {
  ws = await startWsStack({
    SVC_WS_MAX_SUBSCRIPTIONS: '100',
    SVC_WS_MAX_SOCKETS_PER_CREDENTIAL: '2',
    SVC_WS_MAX_SOCKETS_PER_IP: '3',
    SVC_WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
    SVC_RATE_LIMIT_WS_UPGRADE: '0',
  });
});
afterEach(async () => {
  // Each test starts with no socket open, whatever the previous one left.
  for (const socket of sockets.splice(0)) socket.terminate();
  await expect.poll(() => ws.stack.wsSockets.size).toBe(0);
});
afterAll(async () => ws?.close());

describe('/ws bounds', () => {
  it('caps subscriptions per socket at SVC_WS_MAX_SUBSCRIPTIONS with -32005 (D-135)', async () => {
    const socket = await opened((await issueApiKey(ws.target, ['chain:subscribe'])).token);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await call(socket, i, 'eth_subscribe', ['newHeads'])).result as string);
    expect(new Set(ids).size).toBe(100);
    const refused = await call(socket, 100, 'eth_subscribe', ['newHeads']);
    expect(refused.error?.code).toBe(-32005);
    expect(refused.error?.data).toContain('at most 100 subscriptions');
    expect((await call(socket, 101, 'eth_unsubscribe', [ids[0]])).result).toBe(true);
    expect((await call(socket, 102, 'eth_subscribe', ['newHeads'])).result).toMatch(/^0x[0-9a-f]{32}$/);
  });

  it('caps open sockets per credential and per IP with 429 {error} at the upgrade (D-135)', async () => {
    const first = (await issueApiKey(ws.target, ['chain:subscribe'])).token;
    const second = (await issueApiKey(ws.target, ['chain:subscribe'])).token;
    const a = await opened(first);
    await opened(first);
    expect(await openWs(ws.target, { authorization: `Bearer ${first}` })).toBe(429);
    const refused = await request(ws.target, 'ws', { headers: { authorization: `Bearer ${first}` } });
    expect([refused.status, (refused.json as { code: string }).code]).toEqual([429, 'TOO_MANY_CONNECTIONS']);
    expect((refused.json as { error: string }).error).toContain('already holds 2 open /ws connections');
    // The IP cap (3) counts every credential's sockets.
    await opened(second);
    expect(await openWs(ws.target, { authorization: `Bearer ${second}` })).toBe(429);
    // A closed socket frees its place.
    a.close();
    await closed(a);
    await expect.poll(() => ws.stack.wsSockets.size).toBe(2);
    await opened(first);
  });

  it("closes a credential's sockets within 2 s of its revocation or loss of chain:subscribe (D-137)", async () => {
    const revoked = await issueApiKey(ws.target, ['chain:subscribe']);
    const narrowed = await issueApiKey(ws.target, ['chain:subscribe']);
    const kept = await issueApiKey(ws.target, ['chain:subscribe']);
    const [r, n, k] = [await opened(revoked.token), await opened(narrowed.token), await opened(kept.token)];
    // Listening before each change: on a busy machine the close may come before the admin call has answered.
    const [rClosing, nClosing] = [closed(r), closed(n)];
    expect((await admin(ws.target, 'DELETE', `api-keys/${revoked.id}`)).status).toBe(204);
    const rWithin = closedWithin(rClosing, 2000);
    expect(
      (await admin(ws.target, 'PATCH', `api-keys/${narrowed.id}`, { permissions: ['accounts:read'] })).status,
    ).toBe(200);
    const [rClose, nClose] = await Promise.all([rWithin, closedWithin(nClosing, 2000)]);
    expect(rClose).toEqual({ code: POLICY_CLOSE, reason: 'the credential was revoked' });
    expect(nClose).toEqual({ code: POLICY_CLOSE, reason: 'the credential lost the chain:subscribe permission' });
    // The credential that did not change keeps its socket.
    expect((await call(k, 1, 'eth_chainId')).result).toBe('0x10f447');
  });

  it('closes a client that stops reading with 1008 before more than SVC_WS_MAX_BUFFERED_BYTES wait for it (D-136)', async () => {
    const socket = await opened((await issueApiKey(ws.target, ['chain:subscribe'])).token);
    // 20 newHeads subscriptions: about 33 KB of notifications a block, half the cap in one burst.
    for (let i = 0; i < 20; i++) await call(socket, i, 'eth_subscribe', ['newHeads']);
    const [serverSide] = ws.stack.wsSockets.sockets();
    expect(ws.stack.wsSockets.size).toBe(1);
    // What the server has queued for this client, read right after each frame it sends.
    let most = 0;
    let frames = 0;
    const send = serverSide!.send.bind(serverSide);
    serverSide!.send = ((...args: Parameters<typeof send>) => {
      send(...args);
      frames++;
      most = Math.max(most, serverSide!.bufferedAmount);
    }) as typeof send;
    const closing = closed(socket);
    socket.pause();
    let blocks = 0;
    for (; blocks < 2000 && serverSide!.readyState === serverSide!.OPEN; blocks++) {
      const before = frames;
      await ws.stack.chain.producer!.requestBlock();
      // The notifications of a block go out once its header is read: the next block waits for its 20 frames
      // (or for the close they may cause).
      await expect
        .poll(() => frames >= before + 20 || serverSide!.readyState !== serverSide!.OPEN, {
          timeout: 10_000,
          interval: 1,
          message: `the 20 notifications of block ${blocks + 1}`,
        })
        .toBe(true);
    }
    expect(
      serverSide!.readyState,
      `still open after ${blocks} blocks, ${serverSide!.bufferedAmount} bytes unsent`,
    ).not.toBe(serverSide!.OPEN);
    // Not one block's burst: the client's and the kernel's buffers filled first, block after block.
    expect(blocks).toBeGreaterThan(1);
    expect(most).toBeGreaterThan(MAX_BUFFERED / 2);
    expect(most).toBeLessThanOrEqual(MAX_BUFFERED);
    socket.resume();
    expect(await closing).toEqual({
      code: POLICY_CLOSE,
      reason: `slow consumer: more than ${MAX_BUFFERED} bytes unsent`,
    });
  });
});

describe('/ws upgrade attempts', () => {
  let limited: Awaited<ReturnType<typeof startWsStack>>;
  beforeAll(async () => {
    limited = await startWsStack({ SVC_RATE_LIMIT_WS_UPGRADE: '3' });
  });
  afterAll(async () => limited?.close());

  it('are rate-limited per IP before any credential is checked: 429 {error} with Retry-After (D-135)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await openWs(limited.target, {})) as number);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const refused = await request(limited.target, 'ws');
    expect([refused.status, (refused.json as { code: string }).code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
