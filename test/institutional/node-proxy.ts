// A real chain node behind a real HTTP stand-in for the tests of the upstream's failure modes: Anvil (auto-mining,
// so a stack on CHAIN_RPC_URL needs no block producer) and, in front of it, a small HTTP server on loopback that
// forwards JSON-RPC requests, or misbehaves on purpose: refuses connections, accepts and never answers, answers a
// JSON-RPC error, or forwards a matching request to Anvil and then resets the client's socket instead of answering.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Hex } from 'viem';
import { startAnvil, type AnvilNode } from '../../src/node/anvil.ts';

/** How the stand-in treats requests. */
export type ProxyMode =
  | { kind: 'forward' }
  /** The port refuses connections (nothing listens). */
  | { kind: 'refuse' }
  /** Requests (those whose body contains `method`, when given) are read and never answered. */
  | { kind: 'hang'; method?: string }
  /** Requests whose body contains `method` are answered with a JSON-RPC error, as a node refusing them does. */
  | { kind: 'rpc-error'; method: string }
  /** Requests whose body contains `method` reach the node; then the client's socket is reset unanswered. */
  | { kind: 'reset-after-forward'; method: string };

/** Anvil behind the stand-in. */
export type NodeProxy = {
  /** The stand-in's URL with `userinfo`, path and query appended (the stack's CHAIN_RPC_URL). */
  url(decoration?: { userinfo?: string; path?: string }): string;
  /** Switches how later requests are treated. */
  setMode(mode: ProxyMode): Promise<void>;
  /** Calls Anvil directly, past the stand-in. */
  anvil<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Funds `to` from Anvil's first development account and waits for it to be mined. */
  fund(to: Hex, wei: bigint): Promise<void>;
  close(): Promise<void>;
};

/** Starts Anvil with auto-mining and the stand-in in `forward` mode on an ephemeral port. */
export async function startNodeProxy(): Promise<NodeProxy> {
  const node: AnvilNode = await startAnvil();
  const anvil = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  await anvil('evm_setAutomine', [true]);
  let mode: ProxyMode = { kind: 'forward' };
  const sockets = new Set<Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const matches = (method: string | undefined) => method === undefined || body.includes(`"${method}"`);
    if (mode.kind === 'hang' && matches(mode.method)) return;
    if (mode.kind === 'rpc-error' && matches(mode.method)) {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32003, message: 'transaction rejected by the stand-in' },
        }),
      );
      return;
    }
    const answer = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await answer.text();
    if (mode.kind === 'reset-after-forward' && matches(mode.method)) {
      req.socket.resetAndDestroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: ({ userinfo, path } = {}) => `http://${userinfo ? `${userinfo}@` : ''}127.0.0.1:${port}${path ?? ''}`,
    setMode: async (next) => {
      const wasListening = server.listening;
      mode = next;
      cutAll(); // kept-alive sockets must not outlive a change of mode
      if (next.kind === 'refuse' && wasListening) await new Promise<void>((resolve) => server.close(() => resolve()));
      if (next.kind !== 'refuse' && !wasListening)
        await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    anvil,
    // The node has no development accounts (D-151): the test credits the balance on the node itself.
    fund: async (to, wei) => {
      const balance = BigInt(await anvil<Hex>('eth_getBalance', [to, 'latest']));
      await anvil('anvil_setBalance', [to, `0x${(balance + wei).toString(16)}`]);
    },
    close: async () => {
      cutAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      await node.stop();
    },
  };
}
