// The explorer checks compare /api with the chain through the target's chain endpoint: the node given by `--rpc`
// when there is one (D-192), not always `{base_url}/rpc`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcBatch, rpcResult } from '../../conformance/checks/explorer/support.ts';
import type { Target } from '../../conformance/targets/target.ts';

const seen: Array<{ method?: string; url?: string; body: unknown }> = [];
const node = createServer((req: IncomingMessage, res) => {
  let raw = '';
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const body = JSON.parse(raw) as Array<{ id: number; method: string }>;
    seen.push({ method: req.method, url: req.url, body });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body.map((call) => ({ jsonrpc: '2.0', id: call.id, result: `${call.method}-answer` }))));
  });
});
let target: Target;

beforeAll(async () => {
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const { port } = node.address() as AddressInfo;
  // A base where nothing listens: a call that went there would fail.
  target = {
    kind: 'remote',
    base: new URL('https://127.0.0.1:9/'),
    rpc: new URL(`http://127.0.0.1:${port}/node`),
    capabilities: new Set(),
  };
});
afterAll(() => new Promise<void>((resolve) => node.close(() => resolve())));

describe('the explorer checks with --rpc', () => {
  it('send their JSON-RPC batches to the --rpc node, not to {base}/rpc', async () => {
    expect(
      await rpcBatch(target, [
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_chainId', params: [] },
      ]),
    ).toEqual(['eth_blockNumber-answer', 'eth_chainId-answer']);
    expect(await rpcResult(target, 'qbft_getValidatorsByBlockNumber', ['latest'])).toBe(
      'qbft_getValidatorsByBlockNumber-answer',
    );
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /node', 'POST /node']);
  });
});
