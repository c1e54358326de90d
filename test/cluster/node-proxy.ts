// A JSON-RPC proxy in front of the shared chain node for one instance: it passes everything through, and while
// `refuseSends` is set it answers every single eth_sendRawTransaction, after a delay, with an error of the node
// (a definite refusal, the spec's "broadcast fails"), without passing it on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The proxy; `url` goes into the instance's CHAIN_RPC_URL. */
export type NodeProxy = {
  url: string;
  /** The node behind it. */
  target: string;
  refuseSends: boolean;
  /** How many sends it refused. */
  refused: number;
  close(): Promise<void>;
};

/** Starts a proxy on a free loopback port; set `target` before the first request. */
export async function startNodeProxy(delayMs = 300): Promise<NodeProxy> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let parsed: { method?: string; id?: unknown } | undefined;
    try {
      const json = JSON.parse(body) as unknown;
      // A batch is passed on as it is.
      if (json && typeof json === 'object' && !Array.isArray(json)) parsed = json as typeof parsed;
    } catch {
      // passed on as it is
    }
    if (proxy.refuseSends && parsed?.method === 'eth_sendRawTransaction') {
      proxy.refused++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: parsed.id,
          error: { code: -32000, message: 'refused by the test proxy' },
        }),
      );
      return;
    }
    try {
      const answer = await fetch(proxy.target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.statusCode = answer.status;
      res.setHeader('content-type', 'application/json');
      res.end(await answer.text());
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: NodeProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target: '',
    refuseSends: false,
    refused: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
