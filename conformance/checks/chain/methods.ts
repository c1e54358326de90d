/**
 * Surface C: every method of the chain contract called on `{base_url}/rpc`, each result validated against
 * the method's OpenRPC result schema. `chain.methods.schemas` is read-only and runs on any target;
 * `chain.methods.schemas_with_transactions` deploys and calls a log-emitting contract with zero gas price,
 * so receipts, logs, code and storage are checked on real data (reference stack only).
 */
import type { Hex } from 'viem';
import type { Check, CheckContext, CheckVerdict } from '../../catalogue.ts';
import {
  defineCheck,
  call,
  ChainContract,
  devAccount,
  needsSender,
  PING_INIT_CODE,
  PING_RUNTIME,
  PING_TOPIC,
  result,
  signDev,
  verdictOf,
  waitForReceipt,
  WORD_42,
} from './support.ts';

type Block = { number: Hex; hash: Hex; miner: Hex; transactions: (Hex | { hash: Hex })[] };

/** Calls methods, validates their results and remembers which methods were validated. */
class Exerciser {
  readonly validated = new Set<string>();
  readonly attempted = new Set<string>();
  /** Methods answered -32601 Method not found. */
  readonly lacking = new Set<string>();
  readonly problems: string[] = [];

  constructor(
    private readonly ctx: CheckContext,
    private readonly contract: ChainContract,
  ) {}

  /** Calls `method`, validates the result against the contract; returns the result (undefined on error). */
  async run<T = unknown>(method: string, params: unknown[] = []): Promise<T | undefined> {
    this.attempted.add(method);
    const x = await call(this.ctx.target, method, params);
    if (x.error?.code === -32601) this.lacking.add(method);
    if (
      x.http.status !== 200 ||
      x.error ||
      !x.http.json ||
      typeof x.http.json !== 'object' ||
      !('result' in x.http.json)
    ) {
      this.problems.push(
        `${method}(${JSON.stringify(params).slice(0, 120)}) failed: HTTP ${x.http.status} ${x.http.text.slice(0, 200)}`,
      );
      return undefined;
    }
    const errors = this.contract.validateResult(method, x.result);
    if (errors.length)
      this.problems.push(...errors.map((e) => `${e} (params ${JSON.stringify(params).slice(0, 120)})`));
    else this.validated.add(method);
    return x.result as T;
  }

  /**
   * Sends the signed transaction `what` with eth_sendRawTransaction; true when the node took it. A refusal is
   * reported as the node's JSON-RPC error, the cause of the receipt that will never come.
   */
  async send(what: string, signed: { raw: Hex; hash: Hex }): Promise<boolean> {
    this.attempted.add('eth_sendRawTransaction');
    const x = await call(this.ctx.target, 'eth_sendRawTransaction', [signed.raw]);
    if (x.error) {
      const data = x.error.data === undefined ? '' : ` (data ${JSON.stringify(x.error.data).slice(0, 200)})`;
      this.problems.push(
        `the node refused eth_sendRawTransaction of ${what} ${signed.hash}: JSON-RPC error ${x.error.code} ${JSON.stringify(x.error.message)}${data}`,
      );
      return false;
    }
    if (x.http.status !== 200 || typeof x.result !== 'string') {
      this.problems.push(
        `eth_sendRawTransaction of ${what} ${signed.hash} failed: HTTP ${x.http.status} ${x.http.text.slice(0, 200)}`,
      );
      return false;
    }
    const errors = this.contract.validateResult('eth_sendRawTransaction', x.result);
    if (errors.length) this.problems.push(...errors);
    else this.validated.add('eth_sendRawTransaction');
    this.expect(
      x.result === signed.hash,
      `eth_sendRawTransaction of ${what} expected the transaction hash ${signed.hash}, got ${x.result}`,
    );
    return true;
  }

  /** Records a semantic problem when `ok` is false. */
  expect(ok: boolean, problem: string): void {
    if (!ok) this.problems.push(problem);
  }
}

/** The identity precompile (address 0x04) echoes its input on every EVM chain: a call with a known answer. */
const IDENTITY: Hex = '0x0000000000000000000000000000000000000004';
const UNKNOWN_HASH: Hex = `0x${'ab'.repeat(32)}`;

/** Read-only: every HTTP method of the contract except eth_sendRawTransaction, on whatever the chain holds. */
async function readOnlySchemas(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const x = new Exerciser(ctx, contract);
  for (const method of [
    'eth_chainId',
    'eth_blockNumber',
    'eth_gasPrice',
    'eth_syncing',
    'net_version',
    'net_listening',
    'net_peerCount',
    'web3_clientVersion',
    'qbft_getPendingVotes',
    'txpool_besuStatistics',
    'txpool_besuTransactions',
    'admin_nodeInfo',
    'admin_peers',
    // D-253: the values the observer fixes, and the read-only Besu methods of the enabled groups.
    'eth_maxPriorityFeePerGas',
    'eth_blobBaseFee',
    'eth_accounts',
    'eth_coinbase',
    'eth_mining',
    'eth_hashrate',
    'eth_protocolVersion',
    'txpool_status',
    'net_enode',
  ]) {
    await x.run(method);
  }
  await x.run('txpool_besuPendingTransactions', [10]);
  const latest = await x.run<Block>('eth_getBlockByNumber', ['latest', false]);
  await x.run('eth_getBlockByNumber', ['latest', true]);
  await x.run('eth_getBlockByNumber', ['earliest', false]);
  if (!latest) return verdictOf(x.problems, '');
  const byHash = await x.run<Block>('eth_getBlockByHash', [latest.hash, true]);
  x.expect(
    byHash?.hash === latest.hash && byHash?.number === latest.number,
    `eth_getBlockByHash(${latest.hash}) expected block ${latest.number}, got ${byHash?.number}`,
  );
  // spec: "eth_getCode ... DATA, bytecode; empty for externally owned accounts": the proposer is one.
  const account = latest.miner;
  x.expect(
    (await x.run('eth_getCode', [account, 'latest'])) === '0x',
    `eth_getCode of the proposer ${account} (an externally owned account) expected "0x"`,
  );
  await x.run('eth_getBalance', [account, 'latest']);
  await x.run('eth_getStorageAt', [account, '0x0', 'latest']);
  await x.run('eth_getTransactionCount', [account, 'latest']);
  x.expect(
    (await x.run('eth_call', [{ to: IDENTITY, data: '0x1234' }, 'latest'])) === '0x1234',
    'eth_call to the identity precompile 0x04 expected its input 0x1234 back',
  );
  await x.run('eth_estimateGas', [{ from: account, to: IDENTITY, data: '0x1234' }]);
  await x.run('eth_getLogs', [{ fromBlock: latest.number, toBlock: 'latest' }]);
  await x.run('qbft_getValidatorsByBlockNumber', ['latest']);
  await x.run('qbft_getValidatorsByBlockHash', [latest.hash]);
  await x.run('web3_sha3', ['0x68656c6c6f']);
  await x.run('txpool_contentFrom', [account]);
  // D-255: zero base fees; D-258: the block lookups; D-257: a proof and an access list.
  const fees = await x.run<{ baseFeePerGas: string[] }>('eth_feeHistory', ['0x2', 'latest', [50]]);
  x.expect(
    fees?.baseFeePerGas.every((f) => f === '0x0') === true,
    `eth_feeHistory base fees expected 0x0 (gas price 0), got ${JSON.stringify(fees?.baseFeePerGas)}`,
  );
  await x.run('eth_getBlockReceipts', [latest.number]);
  await x.run('eth_getBlockTransactionCountByNumber', [latest.number]);
  await x.run('eth_getBlockTransactionCountByHash', [latest.hash]);
  await x.run('eth_getTransactionByBlockNumberAndIndex', [latest.number, '0x0']);
  await x.run('eth_getTransactionByBlockHashAndIndex', [latest.hash, '0x0']);
  await x.run('eth_getUncleCountByBlockNumber', [latest.number]);
  await x.run('eth_getUncleCountByBlockHash', [latest.hash]);
  await x.run('eth_getUncleByBlockNumberAndIndex', [latest.number, '0x0']);
  await x.run('eth_getUncleByBlockHashAndIndex', [latest.hash, '0x0']);
  await x.run('eth_getProof', [account, ['0x0'], 'latest']);
  // D-254: a contract creation (`to` null) whose init code is empty.
  await x.run('eth_createAccessList', [{ from: account, to: null, data: '0x' }, 'latest']);
  // D-256: each kind of filter, polled, then uninstalled (the check leaves none behind).
  const filters: string[] = [];
  for (const [method, params] of [
    ['eth_newBlockFilter', []],
    ['eth_newPendingTransactionFilter', []],
    ['eth_newFilter', [{ fromBlock: latest.number }]],
  ] as const) {
    const id = await x.run<string>(method, [...params]);
    if (id) filters.push(id);
  }
  for (const id of filters) await x.run('eth_getFilterChanges', [id]);
  if (filters[2]) await x.run('eth_getFilterLogs', [filters[2]]);
  for (const id of filters) await x.run('eth_uninstallFilter', [id]);
  // A recent transaction, if the chain has one; otherwise the lookups are validated on their null result.
  const hash = await recentTransaction(ctx, latest);
  await x.run('eth_getTransactionByHash', [hash ?? UNKNOWN_HASH]);
  await x.run('eth_getTransactionReceipt', [hash ?? UNKNOWN_HASH]);
  // A method added to the contract must be added here too (eth_sendRawTransaction needs a funded sender).
  const missing = contract.httpMethods().filter((m) => m !== 'eth_sendRawTransaction' && !x.attempted.has(m));
  x.expect(missing.length === 0, `methods of the contract this check does not exercise: ${missing.join(', ')}`);
  // A bare node (--rpc, D-192) is told in one line which of the contract's methods it lacks (-32601).
  if (x.lacking.size)
    x.problems.unshift(`the node lacks ${x.lacking.size} methods of the contract: ${[...x.lacking].join(', ')}`);
  const note = hash
    ? `transaction lookups on ${hash}`
    : 'no transaction in the last 20 blocks: transaction lookups validated on null';
  return verdictOf(x.problems, `${x.validated.size} methods' results validate (${note})`, {
    actual: { validated: [...x.validated].sort() },
  });
}

/** The newest transaction hash in the last 20 blocks, if any. */
async function recentTransaction(ctx: CheckContext, latest: Block): Promise<Hex | undefined> {
  for (let n = BigInt(latest.number), seen = 0; n >= 0n && seen < 20; n--, seen++) {
    const block =
      n === BigInt(latest.number)
        ? latest
        : await result<Block | null>(ctx.target, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    const first = block?.transactions[0];
    if (first) return typeof first === 'string' ? first : first.hash;
  }
  return undefined;
}

/** With writes: deploy the Ping contract, call it, and validate every lookup on the resulting data. */
async function schemasWithTransactions(ctx: CheckContext): Promise<CheckVerdict> {
  const skip = needsSender(ctx);
  if (skip) return skip;
  const contract = await ChainContract.load(ctx);
  const x = new Exerciser(ctx, contract);
  const sender = (await devAccount(ctx.target)).address.toLowerCase();
  const nonceBefore = await x.run<Hex>('eth_getTransactionCount', [sender, 'latest']);

  const deploy = await signDev(ctx.target, { data: PING_INIT_CODE, gas: 300_000n });
  if (!(await x.send('the deployment', deploy))) return verdictOf(x.problems, '');
  await waitForReceipt(ctx.target, deploy.hash);
  const created = await x.run<{ status: Hex; contractAddress: Hex | null; blockNumber: Hex }>(
    'eth_getTransactionReceipt',
    [deploy.hash],
  );
  x.expect(created?.status === '0x1', `deployment receipt status expected 0x1, got ${created?.status}`);
  const address = created?.contractAddress;
  if (!address) return verdictOf([...x.problems, 'the deployment receipt has no contractAddress'], '');
  x.expect(
    (await x.run('eth_getCode', [address, 'latest'])) === PING_RUNTIME,
    `eth_getCode(${address}) expected the deployed runtime`,
  );
  x.expect(
    BigInt((await x.run<Hex>('eth_getStorageAt', [address, '0x0', 'latest'])) ?? '0x0') === 7n,
    'eth_getStorageAt slot 0 expected 7 after the constructor',
  );
  // spec: "read-only, creates no transaction": eth_call returns 42 and the slot stays 7.
  x.expect(
    (await x.run('eth_call', [{ to: address, data: '0x' }, 'latest'])) === WORD_42,
    'eth_call expected the word 42',
  );
  x.expect(
    BigInt((await x.run<Hex>('eth_getStorageAt', [address, '0x0', 'latest'])) ?? '0x0') === 7n,
    'eth_call changed storage slot 0',
  );
  const estimate = await x.run<Hex>('eth_estimateGas', [{ from: sender, to: address }]);
  x.expect(
    estimate !== undefined && BigInt(estimate) > 21_000n,
    `eth_estimateGas of a logging call expected more than 21000, got ${estimate}`,
  );

  // A typed (EIP-1559) transaction with zero fees calls the contract: one Ping log.
  const ping = await signDev(ctx.target, { to: address, type: 'eip1559', gas: 100_000n });
  if (!(await x.send('the call', ping))) return verdictOf(x.problems, '');
  await waitForReceipt(ctx.target, ping.hash);
  type Log = { address: Hex; topics: Hex[]; data: Hex; transactionHash: Hex };
  const receipt = await x.run<{ status: Hex; blockNumber: Hex; blockHash: Hex; logs: Log[] }>(
    'eth_getTransactionReceipt',
    [ping.hash],
  );
  if (!receipt) return verdictOf(x.problems, '');
  x.expect(
    receipt.status === '0x1' && receipt.logs.length === 1 && receipt.logs[0]?.topics[0] === PING_TOPIC,
    `call receipt expected status 0x1 and one Ping log, got ${JSON.stringify(receipt).slice(0, 300)}`,
  );
  const logs = await x.run<Log[]>('eth_getLogs', [
    { fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber, address, topics: [PING_TOPIC] },
  ]);
  x.expect(
    logs?.length === 1 && logs[0]?.transactionHash === ping.hash && logs[0]?.data === WORD_42,
    `eth_getLogs expected exactly the Ping log of ${ping.hash}, got ${JSON.stringify(logs).slice(0, 300)}`,
  );
  const none = await x.run<Log[]>('eth_getLogs', [
    { fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber, address, topics: [`0x${'00'.repeat(32)}`] },
  ]);
  x.expect(none?.length === 0, 'eth_getLogs with a topic no log has expected []');

  const tx = await x.run<{ from: Hex; gasPrice: Hex; blockNumber: Hex | null; nonce: Hex }>(
    'eth_getTransactionByHash',
    [ping.hash],
  );
  x.expect(
    tx?.from.toLowerCase() === sender && tx.gasPrice === '0x0' && tx.blockNumber === receipt.blockNumber,
    `eth_getTransactionByHash expected from ${sender}, gasPrice 0x0, block ${receipt.blockNumber}; got ${JSON.stringify(tx).slice(0, 300)}`,
  );
  const full = await x.run<Block>('eth_getBlockByNumber', [receipt.blockNumber, true]);
  x.expect(
    full?.transactions.some((t) => typeof t === 'object' && t.hash === ping.hash) === true,
    'eth_getBlockByNumber(fullTxs true) expected the call among its transaction objects',
  );
  const hashes = await x.run<Block>('eth_getBlockByHash', [receipt.blockHash, false]);
  x.expect(
    hashes?.transactions.includes(ping.hash) === true,
    'eth_getBlockByHash(fullTxs false) expected the call among its transaction hashes',
  );
  x.expect(
    BigInt((await x.run<Hex>('eth_getStorageAt', [address, '0x0', 'latest'])) ?? '0x0') === 8n,
    'eth_getStorageAt slot 0 expected 8 after one call',
  );
  const nonceAfter = await x.run<Hex>('eth_getTransactionCount', [sender, 'latest']);
  x.expect(
    nonceBefore !== undefined && nonceAfter !== undefined && BigInt(nonceAfter) === BigInt(nonceBefore) + 2n,
    `eth_getTransactionCount expected ${nonceBefore} + 2, got ${nonceAfter}`,
  );
  await x.run('eth_getBalance', [sender, 'latest']);
  return verdictOf(
    x.problems,
    `deployed ${address}, called it in block ${receipt.blockNumber}; ${x.validated.size} methods' results validate`,
    {
      actual: { validated: [...x.validated].sort() },
    },
  );
}

/** The spec statement both method-coverage checks enforce. */
const METHOD_SET = {
  quote: 'The JSON-RPC method set follows EIP-1474 plus the qbft, net and web3 groups listed above.',
};

/** The method-coverage checks. */
export function chainMethodChecks(): Check[] {
  return [
    defineCheck({
      id: 'chain.methods.schemas',
      title: 'every read-only method of the contract answers a result that validates against its schema',
      source: METHOD_SET,
      run: readOnlySchemas,
    }),
    defineCheck({
      id: 'chain.methods.schemas_with_transactions',
      title: 'sending, receipts, logs, code, storage, call and estimate validate on a deployed contract',
      source: METHOD_SET,
      needs: ['rpc', 'specs'],
      run: schemasWithTransactions,
    }),
  ];
}
