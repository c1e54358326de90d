// D-253 to D-258: the methods a Besu observer serves that stock clients call on their default paths, through the
// real gateway over TLS on real Anvil: fees, contract creation with `to` null, the block lookups, the proof and the
// access list, the filters, and the methods refused with -32604.
import { keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/node/anvil.ts';
import { PING_INIT_CODE, PING_RUNTIME, PING_TOPIC } from '../../conformance/checks/chain/support.ts';
import { fundedSender } from '../node/funded-sender.ts';
import { call, startGateway, type Gateway } from './support.ts';

let gw: Gateway;
let sender: PrivateKeyAccount;

/** The gateway's result, failing the test with the error object when there is one. */
async function result<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  const answer = await call(gw.rpc, method, params);
  expect(answer.error, `${method} ${JSON.stringify(params)}: ${JSON.stringify(answer.error)}`).toBeUndefined();
  return answer.result as T;
}
const code = async (method: string, params: unknown[] = []) => (await call(gw.rpc, method, params)).error?.code;

/** Sends a zero-fee transaction from the allow-listed sender and waits for its receipt. */
async function send(tx: {
  to?: Hex;
  data?: Hex;
  gas?: bigint;
}): Promise<{ hash: Hex; blockNumber: Hex; contractAddress: Hex | null }> {
  const nonce = Number(BigInt(await result<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
  const raw = await sender.signTransaction({
    chainId: CHAIN_ID,
    nonce,
    gas: tx.gas ?? 300_000n,
    type: 'eip1559',
    maxFeePerGas: 0n,
    maxPriorityFeePerGas: 0n,
    ...(tx.to ? { to: tx.to } : {}),
    ...(tx.data ? { data: tx.data } : {}),
  });
  const hash = await result<Hex>('eth_sendRawTransaction', [raw]);
  await gw.stack.chain.producer!.requestBlock();
  let receipt: { blockNumber: Hex; contractAddress: Hex | null } | null = null;
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = await result('eth_getTransactionReceipt', [hash]);
    if (!receipt) await new Promise((r) => setTimeout(r, 50));
  }
  expect(receipt, `receipt of ${hash}`).not.toBeNull();
  return { hash, ...receipt! };
}

beforeAll(async () => {
  gw = await startGateway();
  sender = await fundedSender(gw.stack.chain.upstream);
  await gw.stack.chain.permissions!.allow(sender.address, 'test sender');
  await gw.stack.chain.producer!.requestBlock();
}, 60_000);
afterAll(async () => gw?.close());

describe('fees at gas price 0 (D-255)', () => {
  it('answers eth_feeHistory with zero base fees and zero rewards, as Besu lays it out', async () => {
    const sent = await send({ to: sender.address });
    const history = await result<{ oldestBlock: Hex; baseFeePerGas: Hex[]; gasUsedRatio: number[]; reward: Hex[][] }>(
      'eth_feeHistory',
      ['0x2', sent.blockNumber, [75, 25]],
    );
    expect(history.oldestBlock).toBe(`0x${(BigInt(sent.blockNumber) - 1n).toString(16)}`);
    expect(history.baseFeePerGas).toEqual(['0x0', '0x0', '0x0']);
    expect(history.gasUsedRatio).toHaveLength(2);
    expect(history.gasUsedRatio[1]).toBeCloseTo(21_000 / 30_000_000, 10);
    expect(history.reward).toEqual([
      ['0x0', '0x0'],
      ['0x0', '0x0'],
    ]);
    const plain = await result<Record<string, unknown>>('eth_feeHistory', ['0x1', 'latest']);
    expect(plain).not.toHaveProperty('reward');
    expect(await result('eth_maxPriorityFeePerGas')).toBe('0x0');
  });

  it('starts a range that reaches before block 0 at block 0, and bounds blockCount and newestBlock', async () => {
    const history = await result<{ oldestBlock: Hex; gasUsedRatio: number[] }>('eth_feeHistory', ['0x400', '0x1', []]);
    expect(history.oldestBlock).toBe('0x0');
    expect(history.gasUsedRatio).toHaveLength(2);
    expect(await code('eth_feeHistory', ['0x0', 'latest'])).toBe(-32602);
    expect(await code('eth_feeHistory', ['0x401', 'latest'])).toBe(-32602);
    expect(await code('eth_feeHistory', ['0x1', 'latest', [101]])).toBe(-32602);
    expect(await code('eth_feeHistory', ['0x1', '0xffffff'])).toBe(-32001);
  });
});

describe('contract creation with `to` null or left out (D-254)', () => {
  it('estimates, calls and lists the access of an init code', async () => {
    for (const to of [null, undefined]) {
      const object = { from: sender.address, data: PING_INIT_CODE, ...(to === null ? { to } : {}) };
      expect(BigInt(await result<Hex>('eth_estimateGas', [object]))).toBeGreaterThan(53_000n);
      // eth_call of init code returns the runtime it would deploy.
      expect(await result('eth_call', [object, 'latest'])).toBe(PING_RUNTIME);
      const list = await result<{ accessList: unknown[]; gasUsed: Hex }>('eth_createAccessList', [object]);
      expect(BigInt(list.gasUsed)).toBeGreaterThan(53_000n);
    }
  });
});

describe('block lookups (D-258)', () => {
  it('answers receipts, counts and transactions by position, and null for an unknown block', async () => {
    const sent = await send({ to: sender.address });
    const block = await result<{ hash: Hex }>('eth_getBlockByNumber', [sent.blockNumber, false]);
    const receipts = await result<{ transactionHash: Hex }[]>('eth_getBlockReceipts', [sent.blockNumber]);
    expect(receipts.map((r) => r.transactionHash)).toEqual([sent.hash]);
    expect(await result('eth_getBlockReceipts', ['earliest'])).toEqual([]);
    expect(await result('eth_getBlockTransactionCountByNumber', [sent.blockNumber])).toBe('0x1');
    expect(await result('eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x1');
    expect(
      (await result<{ hash: Hex }>('eth_getTransactionByBlockNumberAndIndex', [sent.blockNumber, '0x0'])).hash,
    ).toBe(sent.hash);
    expect((await result<{ hash: Hex }>('eth_getTransactionByBlockHashAndIndex', [block.hash, '0x0'])).hash).toBe(
      sent.hash,
    );
    expect(await result('eth_getTransactionByBlockHashAndIndex', [block.hash, '0x1'])).toBeNull();
    expect(await result('eth_getUncleCountByBlockNumber', [sent.blockNumber])).toBe('0x0');
    expect(await result('eth_getUncleCountByBlockHash', [block.hash])).toBe('0x0');
    expect(await result('eth_getUncleByBlockNumberAndIndex', [sent.blockNumber, '0x0'])).toBeNull();
    const unknown = `0x${'ab'.repeat(32)}`;
    for (const [method, params] of [
      ['eth_getBlockReceipts', ['0xffffff']],
      ['eth_getBlockReceipts', [unknown]],
      ['eth_getBlockTransactionCountByNumber', ['0xffffff']],
      ['eth_getBlockTransactionCountByHash', [unknown]],
      ['eth_getTransactionByBlockNumberAndIndex', ['0xffffff', '0x0']],
      ['eth_getUncleCountByBlockNumber', ['0xffffff']],
      ['eth_getUncleCountByBlockHash', [unknown]],
    ] as const)
      expect(await result(method, [...params]), `${method} ${params}`).toBeNull();
  });
});

describe('proofs and the values the observer fixes (D-253, D-257)', () => {
  it('proves an account and its storage, with short keys padded, and refuses more than 64 keys', async () => {
    const deployed = await send({ data: PING_INIT_CODE });
    const proof = await result<{ storageProof: { key: Hex; value: Hex }[]; nonce: Hex }>('eth_getProof', [
      deployed.contractAddress,
      ['0x0'],
    ]);
    expect(proof.storageProof).toEqual([expect.objectContaining({ key: `0x${'0'.repeat(64)}`, value: '0x7' })]);
    expect(proof.nonce).toBe('0x1');
    expect(await code('eth_getProof', [deployed.contractAddress, Array(65).fill('0x1'), 'latest'])).toBe(-32602);
  });

  it('answers the fixed values, and refuses what would need keys or show the node', async () => {
    expect(await result('eth_accounts')).toEqual([]);
    expect(await result('eth_mining')).toBe(true);
    expect(await result('eth_hashrate')).toBe('0x0');
    expect(await result('eth_protocolVersion')).toBe('0x44');
    const info = await result<{ enode: string; id: string }>('admin_nodeInfo');
    expect(await result('net_enode')).toBe(info.enode);
    expect(await result('eth_coinbase')).toBe(`0x${keccak256(`0x${info.id}`).slice(-40)}`);
    const refused = await call(gw.rpc, 'eth_sendTransaction', [{ to: sender.address }]);
    expect(refused.error).toMatchObject({ code: -32604, message: 'Method not enabled' });
    expect(String(refused.error?.data)).toContain('eth_sendRawTransaction');
    for (const method of ['net_services', 'admin_logsRemoveCache', 'admin_generateLogBloomCache'])
      expect(await code(method), method).toBe(-32604);
    expect(await code('eth_simulateV1', [{ blockStateCalls: [] }])).toBe(-32601);
  });

  it("lists pooled transactions as Besu filters them, and one sender's content", async () => {
    const nonce = Number(BigInt(await result<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
    // A nonce gap keeps the transaction in the pool.
    const raw = await sender.signTransaction({
      chainId: CHAIN_ID,
      nonce: nonce + 1,
      gas: 21_000n,
      gasPrice: 0n,
      to: sender.address,
      type: 'legacy',
    });
    const hash = await result<Hex>('eth_sendRawTransaction', [raw]);
    const from = { from: { eq: sender.address.toLowerCase() } };
    expect((await result<{ hash: Hex }[]>('txpool_besuPendingTransactions', [10, from])).map((t) => t.hash)).toEqual([
      hash,
    ]);
    expect(
      await result('txpool_besuPendingTransactions', [10, { ...from, nonce: { lt: `0x${nonce.toString(16)}` } }]),
    ).toEqual([]);
    expect(await result('txpool_besuPendingTransactions', [0])).toEqual([]);
    const content = await result<{ queued: Record<string, { hash: Hex }> }>('txpool_contentFrom', [sender.address]);
    expect(content.queued[String(nonce + 1)]?.hash).toBe(hash);
    expect(await result('txpool_status')).toEqual({ pending: '0x0', queued: '0x1' });
    // The gap filled: both are mined, so later tests see an empty pool.
    await send({ to: sender.address });
  });
});

describe('filters (D-256)', () => {
  it('reports new blocks, logs and transactions once each, and forgets an uninstalled filter', async () => {
    const blocks = await result<Hex>('eth_newBlockFilter');
    const pending = await result<Hex>('eth_newPendingTransactionFilter');
    expect(blocks).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
    const deployed = await send({ data: PING_INIT_CODE });
    const criteria = { fromBlock: deployed.blockNumber, address: deployed.contractAddress, topics: [PING_TOPIC] };
    const logs = await result<Hex>('eth_newFilter', [criteria]);
    const ping = await send({ to: deployed.contractAddress!, gas: 100_000n });
    const hashes = await result<Hex[]>('eth_getFilterChanges', [blocks]);
    const pingBlock = await result<{ hash: Hex }>('eth_getBlockByNumber', [ping.blockNumber, false]);
    expect(hashes).toContain(pingBlock.hash);
    // The producer may seal an empty block meanwhile: a second poll holds only blocks the first did not.
    const again = await result<Hex[]>('eth_getFilterChanges', [blocks]);
    expect(again.filter((h) => hashes.includes(h))).toEqual([]);
    expect(await result('eth_getFilterChanges', [pending])).toEqual(expect.arrayContaining([deployed.hash, ping.hash]));
    expect(await result('eth_getFilterChanges', [pending])).toEqual([]);
    const changes = await result<{ transactionHash: Hex }[]>('eth_getFilterChanges', [logs]);
    expect(changes.map((l) => l.transactionHash)).toEqual([ping.hash]);
    expect(await result('eth_getFilterChanges', [logs.toUpperCase().replace('0X', '0x0')])).toEqual([]);
    // eth_getFilterLogs answers as eth_getLogs with the filter's criteria (toBlock left out: latest).
    expect(await result('eth_getFilterLogs', [logs])).toEqual(await result('eth_getLogs', [criteria]));
    expect((await result<unknown[]>('eth_getFilterLogs', [logs])).length).toBe(1);
    expect(await code('eth_getFilterLogs', [blocks])).toBe(-32000);
    for (const id of [blocks, pending, logs]) expect(await result('eth_uninstallFilter', [id])).toBe(true);
    expect(await result('eth_uninstallFilter', [logs])).toBe(false);
    const gone = await call(gw.rpc, 'eth_getFilterChanges', [logs]);
    expect(gone.error).toMatchObject({ code: -32000, message: 'Filter not found' });
  });

  it('holds at most 64 filters per client IP', async () => {
    const ids: Hex[] = [];
    for (let i = 0; i < 64; i++) ids.push(await result<Hex>('eth_newBlockFilter'));
    const refused = await call(gw.rpc, 'eth_newBlockFilter', []);
    expect(refused.error).toMatchObject({ code: -32005, message: 'limit exceeded' });
    for (const id of ids) await result('eth_uninstallFilter', [id]);
    expect(await result<Hex>('eth_newBlockFilter')).toMatch(/^0x/);
  });
});
