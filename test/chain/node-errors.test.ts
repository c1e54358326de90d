// D-197: the node's answers for a block past the head, a revert and a halted execution reach the client with
// the codes the contract lists, through the real gateway and the real Anvil behind it; the node's own
// answers are read too, so the test shows what the gateway rewrites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractError } from '../../src/server/chain/node-errors.ts';
import { call, post, startGateway, type Gateway } from './support.ts';

let gw: Gateway;
const ZERO = '0x0000000000000000000000000000000000000000';
const REVERTS = '0x00000000000000000000000000000000000bad01';
const HALTS = '0x00000000000000000000000000000000000bad02';

beforeAll(async () => {
  gw = await startGateway();
  // PUSH4 0xdeadbeef, PUSH1 0, MSTORE, PUSH1 4, PUSH1 28, REVERT: reverts with the 4 bytes 0xdeadbeef.
  await call(gw.anvil, 'anvil_setCode', [REVERTS, '0x63deadbeef6000526004601cfd']);
  // INVALID (0xfe): an exceptional halt.
  await call(gw.anvil, 'anvil_setCode', [HALTS, '0xfe']);
  await gw.stack.chain.producer!.requestBlock();
});
afterAll(async () => {
  await gw?.close();
});

describe('a state read at a block number past the head', () => {
  it('is -32001 Resource not found naming the block and the head, where the node says -32602', async () => {
    const head = BigInt((await call(gw.rpc, 'eth_blockNumber', [])).result as string);
    const ahead = `0x${(head + 0x1000n).toString(16)}`;
    expect((await call(gw.anvil, 'eth_getBalance', [ZERO, ahead])).error?.code).toBe(-32602);
    for (const [method, params] of [
      ['eth_getBalance', [ZERO, ahead]],
      ['eth_getCode', [ZERO, { blockNumber: ahead }]],
      ['eth_getStorageAt', [ZERO, '0x0', ahead]],
      ['eth_getTransactionCount', [ZERO, ahead]],
      ['eth_call', [{ to: ZERO }, ahead]],
      ['eth_estimateGas', [{ to: ZERO }, ahead]],
    ] as const) {
      const answer = await call(gw.rpc, method, [...params]);
      expect(answer.error, method).toMatchObject({ code: -32001, message: 'Resource not found' });
      expect(answer.error?.data, method).toMatch(/^block 0x[0-9a-f]+ is past the head 0x[0-9a-f]+$/);
    }
  });

  it('is -32602 for eth_getLogs, as the execution-apis fixture answers, with the head named', async () => {
    const answer = await call(gw.rpc, 'eth_getLogs', [{ fromBlock: '0xffffff', toBlock: '0xffffff' }]);
    expect(answer.error).toMatchObject({ code: -32602, message: 'Invalid params' });
    expect(answer.error?.data).toMatch(/^block range extends beyond the head: block 0xffffff is past the head 0x/);
  });

  it('an unknown blockHash in a log filter is -32001, like every unknown block hash', async () => {
    const filter = { blockHash: `0x${'ab'.repeat(32)}` };
    expect((await call(gw.anvil, 'eth_getLogs', [filter])).error?.code).toBe(-32000);
    expect((await call(gw.rpc, 'eth_getLogs', [filter])).error).toMatchObject({ code: -32001 });
    expect((await call(gw.rpc, 'eth_getBalance', [ZERO, filter.blockHash])).error).toMatchObject({ code: -32001 });
  });

  it('is rewritten inside a batch too, and the batch keeps every other answer', async () => {
    const answers = (await post(gw.rpc, [
      { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ZERO, '0xffffff'] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [ZERO, 'latest'] },
    ])) as unknown as { id: number; result?: string; error?: { code: number } }[];
    expect(answers.find((a) => a.id === 1)?.error?.code).toBe(-32001);
    expect(answers.find((a) => a.id === 2)?.result).toMatch(/^0x[0-9a-f]+$/);
  });
});

describe('a call that fails in the EVM', () => {
  it('that reverts is -32000 Execution reverted with the revert data, where the node says code 3', async () => {
    expect((await call(gw.anvil, 'eth_call', [{ to: REVERTS }, 'latest'])).error?.code).toBe(3);
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const answer = await call(gw.rpc, method, [{ to: REVERTS }, 'latest']);
      expect(answer.error, method).toEqual({ code: -32000, message: 'Execution reverted', data: '0xdeadbeef' });
    }
  });

  it('that halts is -32000 Invalid input naming the halt, where the node says -32603', async () => {
    expect((await call(gw.anvil, 'eth_estimateGas', [{ input: '0x0a' }])).error?.code).toBe(-32603);
    expect((await call(gw.rpc, 'eth_estimateGas', [{ input: '0x0a' }])).error).toEqual({
      code: -32000,
      message: 'Invalid input',
      data: 'the EVM halted: StackUnderflow',
    });
    expect((await call(gw.rpc, 'eth_call', [{ to: HALTS }, 'latest'])).error).toMatchObject({
      code: -32000,
      data: 'the EVM halted: InvalidFEOpcode',
    });
  });
});

describe('a log filter whose fromBlock is after its toBlock (x-block-range)', () => {
  it('is -32602 before anything is relayed, where the node answers an empty list', async () => {
    expect((await call(gw.anvil, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x0' }])).result).toEqual([]);
    const answer = await call(gw.rpc, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x0' }]);
    expect(answer.error).toMatchObject({ code: -32602, message: 'Invalid params' });
    expect(answer.error?.data).toContain('must not name a "fromBlock" block after its "toBlock" block');
    expect((await call(gw.rpc, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1' }])).result).toEqual([]);
    expect((await call(gw.rpc, 'eth_getLogs', [{ fromBlock: 'latest', toBlock: '0x0' }])).error).toBeUndefined();
  });
});

describe('every other error object of the node', () => {
  it('is relayed unchanged', () => {
    for (const error of [
      { code: -32602, message: 'invalid type: map, expected a string' },
      { code: -32603, message: 'database is locked' },
      { code: -32003, message: 'Insufficient funds for gas * price + value' },
      { code: -32001, message: 'Resource not found' },
    ])
      expect(contractError('eth_call', error)).toBe(error);
  });
});
