// The gateway's head (FinalBlockCache, embedded chain) never trails a block the node has already shown a
// client. The node makes a mined block visible a moment before the producer reports it sealed; a client
// that reads a receipt in block N and then asks eth_blockNumber (or the explorer, which reads balances at
// the head) must not be told N - 1. Here the block is mined on a real Anvil behind the producer's back, so
// the window is held open for as long as the test needs.
import type { Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID, startAnvil } from '../../src/node/anvil.ts';
import { FinalBlockCache } from '../../src/node/final-blocks.ts';
import { Upstream } from '../../src/node/upstream.ts';
import { fundedSender } from './funded-sender.ts';
import { RpcDispatcher, type DispatcherDeps } from '../../src/server/chain/service.ts';

const anvil = await startAnvil();
const upstream = new Upstream(anvil.url);
afterAll(() => anvil.stop());

// A fresh key credited on the node (D-151: no published development key is funded).
const sender = await fundedSender(upstream);

/** A dispatcher that relays to the node through `cache`; the relay path needs no other part of the stack. */
function gateway(cache: FinalBlockCache): RpcDispatcher {
  return new RpcDispatcher({
    upstream,
    blockCache: cache,
    producer: undefined,
    permissions: undefined,
    qbftRelay: undefined,
  } as unknown as DispatcherDeps);
}
const ask = async (dispatcher: RpcDispatcher, method: string, params: unknown[]) =>
  (await dispatcher.handle({ jsonrpc: '2.0', id: 1, method, params })).result;
const headOfNode = async () => Number(BigInt(await upstream.call<Hex>('eth_blockNumber')));

/** Mines a transfer on the node without telling the cache; returns its hash and block number. */
async function minedBehindTheProducer(): Promise<{ hash: Hex; block: number }> {
  const nonce = Number(BigInt(await upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
  const signed = await sender.signTransaction({
    type: 'legacy',
    chainId: CHAIN_ID,
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21_000n,
    gasPrice: 0n,
  });
  const hash = await upstream.call<Hex>('eth_sendRawTransaction', [signed]);
  await upstream.call('evm_mine');
  return { hash, block: await headOfNode() };
}

describe('the gateway head', () => {
  it('rises to the block of a receipt the node returned', async () => {
    const cache = new FinalBlockCache();
    cache.noteHead(await headOfNode());
    const dispatcher = gateway(cache);
    const { hash, block } = await minedBehindTheProducer();
    expect(await ask(dispatcher, 'eth_blockNumber', [])).toBe(`0x${(block - 1).toString(16)}`); // the window
    const receipt = (await ask(dispatcher, 'eth_getTransactionReceipt', [hash])) as { blockNumber: Hex };
    expect(Number(BigInt(receipt.blockNumber))).toBe(block);
    expect(await ask(dispatcher, 'eth_blockNumber', [])).toBe(`0x${block.toString(16)}`);
    const latest = (await ask(dispatcher, 'eth_getBlockByNumber', ['latest', false])) as {
      number: Hex;
      transactions: Hex[];
    };
    expect(latest.transactions).toEqual([hash]);
  });

  it('rises to a mined transaction or block the node returned, and not to a pending one', async () => {
    const cache = new FinalBlockCache();
    cache.noteHead(await headOfNode());
    const dispatcher = gateway(cache);
    const first = await minedBehindTheProducer();
    await ask(dispatcher, 'eth_getTransactionByHash', [first.hash]);
    expect(cache.latest).toBe(first.block);
    const second = await minedBehindTheProducer();
    await ask(dispatcher, 'eth_getBlockByNumber', [`0x${second.block.toString(16)}`, false]);
    expect(cache.latest).toBe(second.block);
    await ask(dispatcher, 'eth_getBlockByNumber', ['pending', false]);
    expect(cache.latest).toBe(second.block);
  });

  it('ignores answers that name no block, and never goes down', () => {
    const cache = new FinalBlockCache();
    cache.noteHead(10);
    cache.observe('eth_getTransactionReceipt', ['0x01'], null);
    cache.observe('eth_getTransactionByHash', ['0x01'], { blockNumber: null });
    cache.observe('eth_getBlockByNumber', ['pending', false], { number: '0x20', hash: '0x02' });
    cache.observe('eth_getBalance', ['0x01', 'latest'], '0x20');
    cache.observe('eth_getTransactionReceipt', ['0x01'], { blockNumber: '0x5' });
    expect(cache.latest).toBe(10);
    cache.observe('eth_getBlockByHash', ['0x01', false], { number: '0xb', hash: '0x01' });
    expect(cache.latest).toBe(11);
  });
});
