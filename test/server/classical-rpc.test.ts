// D-259: the classical-TLS listener of /rpc and /ws (SVC_RPC_CLASSICAL_PORT). Real TLS on both doors: a client
// that offers only classical groups gets in through the second listener and is refused by the base origin; the
// second listener serves /rpc and /ws and answers everything else 404; both doors count in one per-IP limit.
import https from 'node:https';
import tls from 'node:tls';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from '../../conformance/checks/transport/index.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { issueApiKey } from '../chain/ws/support.ts';

const CLASSICAL_ONLY = 'X25519:P-256';
/** The /rpc limit of the stack: small, so that the shared count is reached in a few requests. */
const RPC_LIMIT = 6;
/** The per-IP connection cap of the stack (D-205), small enough to be held in a test. */
const PER_IP = 8;

type Answer = { status: number; body: string };

/** One HTTPS request offering only `groups`, on a connection of its own. */
function send(origin: string, path: string, ca: string, groups: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      new URL(path, origin),
      {
        method: body === undefined ? 'GET' : 'POST',
        ca,
        ecdhCurve: groups,
        agent: false,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        timeout: 10_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${origin}${path} within 10 s`)));
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const chainId = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

describe('the classical-TLS listener of /rpc and /ws (D-259)', () => {
  let started: TestStack;
  let classical: string;
  let ca: string;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    // A clock that does not move: the per-IP window of /rpc stays the same one for the whole file.
    started = await startTestStack({
      env: {
        SVC_RPC_CLASSICAL_PORT: '0',
        SVC_RATE_LIMIT_RPC: String(RPC_LIMIT),
        SVC_RATE_LIMIT_ADMIN: '0',
        SVC_MAX_CONNECTIONS_PER_IP: String(PER_IP),
      },
      clock,
    });
    classical = started.ready.rpcClassical!;
    ca = started.stack.tls.caCert;
  });
  afterAll(async () => {
    await started?.close();
  });

  it('is off unless SVC_RPC_CLASSICAL_PORT is set, and a bad value is refused by name', () => {
    expect(loadConfig({}).rpcClassicalPort).toBeUndefined();
    expect(loadConfig({ SVC_RPC_CLASSICAL_PORT: '0' }).rpcClassicalPort).toBe(0);
    expect(() => loadConfig({ SVC_RPC_CLASSICAL_PORT: 'rpc' })).toThrow(
      'SVC_RPC_CLASSICAL_PORT expected a port number from 0 to 65535 (0 = ephemeral), got "rpc"',
    );
  });

  it('lets a classical-only client in, while the base origin refuses it and stays hybrid-only', async () => {
    expect(classical).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(classical).not.toBe(started.ready.base);
    const onClassical = await handshake(started.target, new URL(classical), { groups: CLASSICAL_ONLY });
    expect(onClassical).toMatchObject({ ok: true, protocol: 'TLSv1.3', group: 'X25519' });
    expect(await handshake(started.target, started.target.base!, { groups: CLASSICAL_ONLY })).toMatchObject({
      ok: false,
    });
    // A hybrid client on the classical listener still gets the hybrid group: it comes first.
    expect(await handshake(started.target, new URL(classical), { groups: 'X25519MLKEM768:X25519' })).toMatchObject({
      ok: true,
      group: 'X25519MLKEM768',
    });
  });

  it('serves /rpc to the classical-only client, and answers every other path 404 in the {error, code} shape', async () => {
    const answer = await send(classical, '/rpc', ca, CLASSICAL_ONLY, chainId);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10f447' });
    for (const path of ['/admin/v1/health', '/api/blocks', '/wallet/api/v1/accounts', '/docs/chain', '/nothing']) {
      const refused = await send(classical, path, ca, CLASSICAL_ONLY);
      expect(refused.status, path).toBe(404);
      expect(JSON.parse(refused.body), path).toEqual({
        error: `no route GET ${path} on the classical-TLS listener: it serves only /rpc and /ws`,
        code: 'NOT_FOUND',
      });
    }
    // The same paths on the base origin are served there (over hybrid TLS).
    const health = await send(started.ready.base, '/admin/v1/health', ca, 'X25519MLKEM768');
    expect(health.status).not.toBe(404);
  });

  it('upgrades /ws for a credential holding chain:subscribe, over classical-only TLS', async () => {
    const key = await issueApiKey({ ...started.target, adminToken: started.ready.adminToken! }, ['chain:subscribe']);
    const socket = new WebSocket(new URL('/ws', classical.replace(/^https/, 'wss')), {
      headers: { authorization: `Bearer ${key.token}` },
      ca,
      ecdhCurve: CLASSICAL_ONLY,
    });
    const frame = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no /ws answer within 10 s')), 10_000);
      socket.once('open', () => socket.send(JSON.stringify({ ...chainId, id: 2 })));
      socket.once('message', (data: Buffer) => {
        clearTimeout(timer);
        resolve(JSON.parse(data.toString()));
      });
      socket.once('error', reject);
    });
    socket.close();
    expect(frame).toEqual({ jsonrpc: '2.0', id: 2, result: '0x10f447' });
    // The same client on the base origin fails the handshake: it offers only the classical groups.
    const refused = new WebSocket(new URL('/ws', started.ready.base.replace(/^https/, 'wss')), {
      headers: { authorization: `Bearer ${key.token}` },
      ca,
      ecdhCurve: CLASSICAL_ONLY,
    });
    const failure = await new Promise<string>((resolve) => {
      refused.once('open', () => resolve('open'));
      refused.once('error', (error) => resolve(error.message));
    });
    expect(failure).toMatch(/handshake failure/);
  });

  it('counts /rpc on both doors in one per-IP limit: the second door gives no more requests', async () => {
    // The window of the clock that does not move: earlier requests of this file already count in it.
    clock.advance(10_000);
    const statuses: number[] = [];
    for (let i = 0; i < RPC_LIMIT; i += 1) {
      const door = i % 2 === 0 ? started.ready.base : classical;
      const groups = i % 2 === 0 ? 'X25519MLKEM768' : CLASSICAL_ONLY;
      statuses.push((await send(door, '/rpc', ca, groups, chainId)).status);
    }
    expect(statuses).toEqual(Array(RPC_LIMIT).fill(200));
    const over = await send(classical, '/rpc', ca, CLASSICAL_ONLY, chainId);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005 } });
    expect((await send(started.ready.base, '/rpc', ca, 'X25519MLKEM768', chainId)).status).toBe(429);
  });

  it('counts its connections in the base origin per-IP cap: connections held on one door leave none on the other', async () => {
    /** A TLS connection, resolved once it is through the handshake or refused. */
    const connect = (origin: string, groups: string) =>
      new Promise<tls.TLSSocket | string>((resolve) => {
        const url = new URL(origin);
        const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca, ecdhCurve: groups });
        socket.once('secureConnect', () => resolve(socket));
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    const held: tls.TLSSocket[] = [];
    try {
      for (let i = 0; i < PER_IP; i += 1) {
        const socket = await connect(started.ready.base, 'X25519MLKEM768');
        expect(socket, `connection ${i + 1} of ${PER_IP} on the base origin`).toBeInstanceOf(tls.TLSSocket);
        held.push(socket as tls.TLSSocket);
      }
      expect(await connect(classical, CLASSICAL_ONLY)).toBe('ECONNRESET');
      const closed = new Promise((resolve) => held[0]!.once('close', resolve));
      held.shift()!.destroy();
      await closed;
      // The server counts the close once it sees it: try again for up to 2 s.
      let again: tls.TLSSocket | string = 'not tried';
      for (let tries = 0; tries < 20 && !(again instanceof tls.TLSSocket); tries += 1) {
        again = await connect(classical, CLASSICAL_ONLY);
        if (!(again instanceof tls.TLSSocket)) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(again).toBeInstanceOf(tls.TLSSocket);
      held.push(again as tls.TLSSocket);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
