// Surface C: the generated typed JSON-RPC client runs against the generated mock.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRpcError, chainRpcErrorCodes, createChainRpcClient } from '../../generated/chain/client.gen';
import type { Block } from '../../generated/chain/types.gen';
import { chainRpcExamples, exampleRpcHandler } from '../../mocks/chain.gen';

const server = setupServer(exampleRpcHandler());
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
const rpc = createChainRpcClient({ url: 'https://localhost:8443/rpc' });

describe('typed JSON-RPC client against the mock', () => {
  it('reads the chain id, gas price and network id the spec fixes', async () => {
    expect(await rpc.call('eth_chainId')).toBe('0x10f447');
    expect(await rpc.call('eth_gasPrice')).toBe('0x0');
    expect(await rpc.call('net_version')).toBe('1111111');
  });

  it('reads a block with positional, typed parameters', async () => {
    const block = (await rpc.call('eth_getBlockByNumber', '0x4d2', false)) as Block;
    expect(block.number).toBe('0x4d2');
    expect(block.transactions.every((tx) => typeof tx === 'string')).toBe(true);
  });

  it('calls every method of the contract with its example params and gets the example result', async () => {
    const methods = Object.keys(chainRpcExamples) as (keyof typeof chainRpcExamples)[];
    expect(methods.length).toBeGreaterThanOrEqual(24);
    for (const method of methods) {
      for (const example of chainRpcExamples[method]) {
        const call = rpc.call as (m: string, ...p: unknown[]) => Promise<unknown>;
        // The mock answers with the first pairing whose params match (eth_syncing has two with none).
        const first = chainRpcExamples[method].find(
          (e) => JSON.stringify(e.params) === JSON.stringify(example.params),
        )!;
        expect(await call(method, ...example.params), method).toEqual(first.result);
      }
    }
  });

  it('raises a ChainRpcError with the JSON-RPC code for an unknown method', async () => {
    const call = rpc.call as (m: string) => Promise<unknown>;
    const error = await call('eth_noSuchMethod').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainRpcError);
    expect((error as ChainRpcError).code).toBe(chainRpcErrorCodes.MethodNotFound);
  });
});
