// D-131: the gateway reads each request form Besu reads (and Anvil, the node behind it, also reads), and stays
// strict where the specification is. Every accepted form is sent to Anvil directly too, so the test shows the
// node takes it, and the gateway's answer is compared with the node's answer for the canonical form.
import { keccak256, toHex, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/node/anvil.ts';
import { fundedSender } from '../node/funded-sender.ts';
import { call, startGateway, type Gateway } from './support.ts';

// A fresh key credited on the node and allow-listed as the administrator would (D-050, D-152).
let writer: PrivateKeyAccount;
const CONTRACT = '0x00000000000000000000000000000000000c0de1';
const STORED = `0x${'00'.repeat(31)}2a` as Hex;

let gw: Gateway;
/** The gateway's result, failing the test with the error object when there is one. */
async function viaGateway(method: string, params: unknown[]): Promise<unknown> {
  const answer = await call(gw.rpc, method, params);
  expect(answer.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  return answer.result;
}
/** Anvil's own result for the same request. */
async function viaNode(method: string, params: unknown[]): Promise<unknown> {
  const answer = await call(gw.anvil, method, params);
  expect(answer.error, `Anvil ${method} ${JSON.stringify(params)}`).toBeUndefined();
  return answer.result;
}
/** The gateway's error code for a request it must refuse. */
const refusal = async (method: string, params: unknown[]) => (await call(gw.rpc, method, params)).error?.code;

beforeAll(async () => {
  gw = await startGateway();
  writer = await fundedSender(gw.stack.chain.upstream);
  await gw.stack.chain.permissions!.allow(writer.address, 'test writer');
  // Set on the node directly, not through the gateway (which does not serve anvil_*).
  await viaNode('anvil_setCode', [CONTRACT, '0x00']);
  await viaNode('anvil_setStorageAt', [CONTRACT, '0x1', STORED]);
  await gw.stack.chain.producer!.requestBlock();
  await gw.stack.chain.producer!.requestBlock();
});
afterAll(async () => {
  await gw?.close();
});

describe('storage slots (spec: "QUANTITY, 32-byte slot"; execution-apis bytesMax32)', () => {
  it('reads a 32-byte zero-padded slot, a slot with leading zeros and upper-case digits as the minimal quantity', async () => {
    const expected = await viaNode('eth_getStorageAt', [CONTRACT, '0x1', 'latest']);
    expect(expected).toBe(STORED);
    for (const slot of [`0x${'00'.repeat(31)}01`, '0x01', '0x0001']) {
      expect(await viaNode('eth_getStorageAt', [CONTRACT, slot, 'latest'])).toBe(STORED);
      expect(await viaGateway('eth_getStorageAt', [CONTRACT, slot, 'latest'])).toBe(STORED);
    }
    const upper = `0x${'00'.repeat(31)}0A`;
    expect(await viaGateway('eth_getStorageAt', [CONTRACT, upper, 'latest'])).toBe(
      await viaNode('eth_getStorageAt', [CONTRACT, upper, 'latest']),
    );
  });

  it('still refuses a slot longer than 32 bytes, an empty one and one without hex', async () => {
    for (const slot of [`0x${'00'.repeat(33)}`, '0x', '0xasdf', '1'])
      expect(await refusal('eth_getStorageAt', [CONTRACT, slot, 'latest']), slot).toBe(-32602);
  });
});

describe('block numbers and tags', () => {
  it('reads a block number with leading zeros or upper-case digits as the same block', async () => {
    const block1 = (await viaNode('eth_getBlockByNumber', ['0x1', false])) as { hash: Hex };
    for (const form of ['0x01', '0x0001']) {
      expect(((await viaNode('eth_getBlockByNumber', [form, false])) as { hash: Hex }).hash).toBe(block1.hash);
      expect(((await viaGateway('eth_getBlockByNumber', [form, false])) as { hash: Hex }).hash).toBe(block1.hash);
    }
    const head = Number(BigInt((await viaNode('eth_blockNumber', [])) as Hex));
    const upper = `0x${head.toString(16).toUpperCase().padStart(2, '0')}`;
    await viaNode('eth_getBalance', [writer.address, upper]);
    expect(await viaGateway('eth_getBalance', [writer.address, upper])).toBe(
      await viaNode('eth_getBalance', [writer.address, toHex(head)]),
    );
    expect(await viaGateway('qbft_getValidatorsByBlockNumber', ['0x01'])).toEqual(
      await viaGateway('qbft_getValidatorsByBlockNumber', ['0x1']),
    );
  });

  it('takes the finalized and safe tags as the latest block (QBFT blocks are final once sealed)', async () => {
    const latest = (await viaGateway('eth_getBlockByNumber', ['latest', false])) as { hash: Hex; number: Hex };
    expect(Number(BigInt(latest.number))).toBeGreaterThan(0);
    for (const tag of ['finalized', 'safe']) {
      await viaNode('eth_getBlockByNumber', [tag, false]);
      expect(((await viaGateway('eth_getBlockByNumber', [tag, false])) as { hash: Hex }).hash).toBe(latest.hash);
      expect(await viaGateway('eth_getTransactionCount', [writer.address, tag])).toBe(
        await viaNode('eth_getTransactionCount', [writer.address, 'latest']),
      );
      expect(await viaGateway('qbft_getValidatorsByBlockNumber', [tag])).toEqual(
        await viaGateway('qbft_getValidatorsByBlockNumber', ['latest']),
      );
    }
  });

  it('reads tags in any letter case, as Besu does', async () => {
    await viaNode('eth_getBalance', [writer.address, 'Latest']);
    expect(await viaGateway('eth_getBalance', [writer.address, 'Latest'])).toBe(
      await viaNode('eth_getBalance', [writer.address, 'latest']),
    );
    expect(((await viaGateway('eth_getBlockByNumber', ['EARLIEST', false])) as { number: Hex }).number).toBe('0x0');
  });

  it('takes a block hash or an EIP-1898 object for state reads and eth_call', async () => {
    const block1 = (await viaNode('eth_getBlockByNumber', ['0x1', false])) as { hash: Hex };
    const expected = await viaNode('eth_getBalance', [writer.address, '0x1']);
    for (const form of [
      block1.hash,
      { blockNumber: '0x1' },
      { blockHash: block1.hash },
      { blockHash: block1.hash, requireCanonical: true },
      { blockHash: block1.hash.toUpperCase().replace('0X', '0x') },
    ]) {
      expect(await viaNode('eth_getBalance', [writer.address, form])).toBe(expected);
      expect(await viaGateway('eth_getBalance', [writer.address, form]), JSON.stringify(form)).toBe(expected);
    }
    expect(await viaGateway('eth_getStorageAt', [CONTRACT, '0x1', { blockNumber: 'latest' }])).toBe(STORED);
    expect(await viaGateway('eth_getCode', [CONTRACT, { blockHash: block1.hash }])).toBe(
      await viaNode('eth_getCode', [CONTRACT, block1.hash]),
    );
    expect(await viaGateway('eth_call', [{ to: CONTRACT }, { blockNumber: '0x1' }])).toBe(
      await viaNode('eth_call', [{ to: CONTRACT }, { blockNumber: '0x1' }]),
    );
  });

  it('still refuses unknown tags, decimal numbers and malformed EIP-1898 objects', async () => {
    for (const block of [
      'tomorrow',
      '12',
      '0x',
      { blockNumber: '0x1', blockHash: `0x${'11'.repeat(32)}` },
      { requireCanonical: true },
      { blockHash: '0x12' },
    ]) {
      expect(await refusal('eth_getBalance', [writer.address, block]), JSON.stringify(block)).toBe(-32602);
    }
    // eth_getBlockByNumber takes no block object (Besu and Anvil alike).
    expect(await refusal('eth_getBlockByNumber', [{ blockNumber: '0x1' }, false])).toBe(-32602);
  });
});

describe('call objects', () => {
  it('takes the call data as "input", the execution-apis name, and quantities with leading zeros', async () => {
    const data = '0x1234';
    await viaNode('eth_call', [{ to: CONTRACT, input: data, value: '0x00', gas: '0x0186A0' }, 'latest']);
    expect(
      await viaGateway('eth_call', [{ to: CONTRACT, input: data, value: '0x00', gas: '0x0186A0' }, 'latest']),
    ).toBe(await viaNode('eth_call', [{ to: CONTRACT, data }, 'latest']));
    expect(await viaGateway('eth_estimateGas', [{ from: writer.address, to: CONTRACT, input: data }])).toBe(
      await viaNode('eth_estimateGas', [{ from: writer.address, to: CONTRACT, data }]),
    );
  });

  it('refuses a call whose "data" and "input" differ, as Besu and Geth do', async () => {
    expect(await refusal('eth_call', [{ to: CONTRACT, data: '0x12', input: '0x34' }, 'latest'])).toBe(-32602);
    expect(await refusal('eth_estimateGas', [{ to: CONTRACT, data: '0x12', input: '0x34' }])).toBe(-32602);
    expect(await viaGateway('eth_call', [{ to: CONTRACT, data: '0xab', input: '0xAB' }, 'latest'])).toBe('0x');
  });

  it('takes the block eth_estimateGas may name', async () => {
    const expected = await viaNode('eth_estimateGas', [{ from: writer.address, to: CONTRACT }]);
    for (const block of ['latest', 'finalized', { blockNumber: '0x1' }]) {
      await viaNode('eth_estimateGas', [{ from: writer.address, to: CONTRACT }, block]);
      expect(await viaGateway('eth_estimateGas', [{ from: writer.address, to: CONTRACT }, block])).toBe(expected);
    }
  });
});

describe('hashes, data and filters in either case', () => {
  it('finds a block by an upper-case hash and hashes upper-case data', async () => {
    const block1 = (await viaNode('eth_getBlockByNumber', ['0x1', false])) as { hash: Hex };
    const upper = `0x${block1.hash.slice(2).toUpperCase()}`;
    await viaNode('eth_getBlockByHash', [upper, false]);
    expect(((await viaGateway('eth_getBlockByHash', [upper, false])) as { hash: Hex }).hash).toBe(block1.hash);
    await viaNode('web3_sha3', ['0xABCD']);
    expect(await viaGateway('web3_sha3', ['0xABCD'])).toBe(keccak256('0xabcd'));
  });

  it('accepts an upper-case signed transaction', async () => {
    const nonce = Number(BigInt((await viaNode('eth_getTransactionCount', [writer.address, 'latest'])) as Hex));
    const signed = await writer.signTransaction({
      type: 'legacy',
      chainId: CHAIN_ID,
      nonce,
      to: CONTRACT,
      value: 1n,
      gas: 50_000n,
      gasPrice: 0n,
    });
    const hash = (await viaGateway('eth_sendRawTransaction', [`0x${signed.slice(2).toUpperCase()}`])) as Hex;
    expect(hash).toBe(keccak256(signed));
  });

  it('takes an EIP-234 blockHash filter and refuses one that also names a range', async () => {
    const block1 = (await viaNode('eth_getBlockByNumber', ['0x1', false])) as { hash: Hex };
    expect(await viaGateway('eth_getLogs', [{ blockHash: block1.hash }])).toEqual(
      await viaNode('eth_getLogs', [{ blockHash: block1.hash }]),
    );
    expect(
      await viaGateway('eth_getLogs', [{ fromBlock: '0x00', toBlock: 'finalized', topics: [`0x${'AB'.repeat(32)}`] }]),
    ).toEqual([]);
    expect(await refusal('eth_getLogs', [{ blockHash: block1.hash, fromBlock: '0x1' }])).toBe(-32602);
  });
});
