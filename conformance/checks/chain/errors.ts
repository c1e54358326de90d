/**
 * Surface C error behaviour: the JSON-RPC 2.0 error objects and codes of D-023 and D-013, batches (D-051),
 * null for unknown lookups (D-074), null receipts while pending, and the write permission of D-050.
 */
import { keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Check, CheckContext, CheckVerdict, DecisionId } from '../../catalogue.ts';
import { type HttpResult, request, rpcUrl } from '../../http.ts';
import {
  defineCheck,
  call,
  CHAIN_ID,
  ChainContract,
  devAccount,
  errorProblem,
  needsReference,
  result,
  signDev,
  verdictOf,
  waitForReceipt,
} from './support.ts';

type Probe = { body: unknown; error: string; id: unknown; what: string };

/** Sends each probe as its own POST /rpc and checks the single error object it gets back. */
async function probeErrors(ctx: CheckContext, probes: Probe[]): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const problems: string[] = [];
  let last: HttpResult['request'] | undefined;
  for (const probe of probes) {
    const http = await request(ctx.target, rpcUrl(ctx.target), {
      body: probe.body,
      headers: { 'content-type': 'application/json' },
    });
    last = http.request;
    const problem = errorProblem(contract, http, probe.error, probe.id);
    if (problem) problems.push(`${probe.what}: ${problem}`);
  }
  return verdictOf(
    problems,
    `${probes.length} request(s) answered with ${[...new Set(probes.map((p) => p.error))].join(', ')}`,
    last ? { request: last } : {},
  );
}

const rpcBody = (id: number | string, method: string, params: unknown[] = []) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** An error check built from probes. */
function errorCheck(
  id: string,
  title: string,
  decision: DecisionId,
  probes: (ctx: CheckContext) => Promise<Probe[]> | Probe[],
): Check {
  return defineCheck({ id, title, source: { decision }, run: async (ctx) => probeErrors(ctx, await probes(ctx)) });
}

/** Every group and method the contract lists as not enabled (x-method-not-enabled, D-013). */
async function notEnabledProbes(ctx: CheckContext): Promise<Probe[]> {
  const contract = await ChainContract.load(ctx);
  const spec = contract.doc['x-method-not-enabled'] as { methods: string[]; groups: string[] };
  const names = [
    ...spec.methods,
    ...spec.groups.map((g) => `${g}_svckitProbe`),
    'debug_traceTransaction',
    'miner_start',
  ];
  return names.map((name, i) => ({ body: rpcBody(100 + i, name), error: 'MethodNotEnabled', id: 100 + i, what: name }));
}

/** A batch mixing a good call, errors, a non-object and a notification gets one answer per request with an id (D-051). */
async function batchAnswersEach(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const body = [
    rpcBody('a', 'eth_chainId'),
    rpcBody('b', 'svckit_noSuchMethod'),
    rpcBody('c', 'eth_getBalance', ['0x12', 'latest']),
    7,
    { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
  ];
  const http = await request(ctx.target, rpcUrl(ctx.target), { body });
  const problems: string[] = [];
  const answers = Array.isArray(http.json)
    ? (http.json as { id: unknown; result?: unknown; error?: { code: number } }[])
    : undefined;
  if (!answers)
    return {
      status: 'failed',
      reason: `a batch expected an array of responses, got ${http.text.slice(0, 200)}`,
      request: http.request,
    };
  // JSON-RPC 2.0 §6: responses may come in any order and are matched by id; a notification gets none.
  const byId = new Map(answers.map((a) => [a.id, a]));
  if (answers.length !== 4) problems.push(`expected 4 responses (the notification gets none), got ${answers.length}`);
  if (byId.get('a')?.result !== '0x10f447')
    problems.push(`"a" (eth_chainId) expected result 0x10f447, got ${JSON.stringify(byId.get('a'))}`);
  const codes: [unknown, string][] = [
    ['b', 'MethodNotFound'],
    ['c', 'InvalidParams'],
    [null, 'InvalidRequest'],
  ];
  for (const [id, name] of codes) {
    const want = contract.error(name).code;
    if (byId.get(id)?.error?.code !== want)
      problems.push(`${JSON.stringify(id)} expected error ${want} (${name}), got ${JSON.stringify(byId.get(id))}`);
  }
  return verdictOf(problems, 'one response per request with an id, matched by id', { request: http.request });
}

/** D-074: unknown blocks, transactions and receipts are null. */
async function unknownLookupsNull(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const latest = BigInt(await result<Hex>(ctx.target, 'eth_blockNumber'));
  const unknownHash = keccak256(toHex(`svckit unknown ${Date.now()}`));
  const lookups: [string, unknown[]][] = [
    ['eth_getBlockByNumber', [`0x${(latest + 1_000_000n).toString(16)}`, false]],
    ['eth_getBlockByHash', [unknownHash, false]],
    ['eth_getTransactionByHash', [unknownHash]],
    ['eth_getTransactionReceipt', [unknownHash]],
  ];
  const problems: string[] = [];
  for (const [method, params] of lookups) {
    const x = await call(ctx.target, method, params);
    if (x.error || !x.http.json || typeof x.http.json !== 'object' || !('result' in x.http.json) || x.result !== null) {
      problems.push(`${method}(${JSON.stringify(params)}) expected result null, got ${x.http.text.slice(0, 200)}`);
    } else problems.push(...contract.validateResult(method, null));
  }
  return verdictOf(problems, `${lookups.length} lookups of unknown blocks and transactions answer null`);
}

/**
 * D-050: a sender the chain never funded gets -32007, and the transaction is not relayed. The sender is a
 * throwaway key and the transaction a zero-value, zero-fee transfer to itself, so a deployment that wrongly
 * accepts it gains only that harmless transaction.
 */
async function unfundedSender(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const stranger = privateKeyToAccount(generatePrivateKey());
  // Gas price 0 makes the transaction free, so only permissioning can stop it (spec: "writes require a funded account").
  const raw = await stranger.signTransaction({
    chainId: CHAIN_ID,
    nonce: 0,
    gas: 21_000n,
    gasPrice: 0n,
    to: stranger.address,
    value: 0n,
    type: 'legacy',
  });
  const http = await request(ctx.target, rpcUrl(ctx.target), { body: rpcBody(50, 'eth_sendRawTransaction', [raw]) });
  const problems: string[] = [];
  const problem = errorProblem(contract, http, 'SenderNotAuthorized', 50);
  if (problem) problems.push(`eth_sendRawTransaction from the fresh account ${stranger.address}: ${problem}`);
  const relayed = await result(ctx.target, 'eth_getTransactionByHash', [keccak256(raw)]);
  if (relayed !== null)
    problems.push(
      `the refused transaction ${keccak256(raw)} reached the node: ${JSON.stringify(relayed).slice(0, 200)}`,
    );
  return verdictOf(problems, `fresh account ${stranger.address} refused with -32007; transaction not relayed`, {
    request: http.request,
  });
}

/**
 * spec: "eth_getTransactionReceipt returns null while the transaction is pending". Instant mining seals
 * right after a send, so pending is made observable honestly with a nonce gap: the transaction with nonce
 * n+1 is accepted and pooled, but no block can include it until nonce n arrives. While it waits (a block
 * is sealed meanwhile) the node knows it (by hash and in the pool) and its receipt is null; once nonce n
 * is sent both are mined and the receipt appears.
 */
async function receiptNullWhilePending(ctx: CheckContext): Promise<CheckVerdict> {
  const skip = needsReference(ctx);
  if (skip) return skip;
  const contract = await ChainContract.load(ctx);
  const problems: string[] = [];
  const sender = (await devAccount(ctx.target)).address;
  const nonce = Number(BigInt(await result<Hex>(ctx.target, 'eth_getTransactionCount', [sender, 'latest'])));
  const later = await signDev(ctx.target, { to: sender, nonce: nonce + 1, gas: 21_000n });
  const accepted = await call(ctx.target, 'eth_sendRawTransaction', [later.raw]);
  if (accepted.result !== later.hash)
    return {
      status: 'failed',
      reason: `the gapped transaction was not accepted: ${accepted.http.text.slice(0, 200)}`,
      request: accepted.request,
    };
  await ctx.target.reference!.mineBlock();
  const known = await result<{ blockNumber: Hex | null } | null>(ctx.target, 'eth_getTransactionByHash', [later.hash]);
  if (!known || known.blockNumber !== null)
    problems.push(
      `eth_getTransactionByHash expected the pending transaction with blockNumber null, got ${JSON.stringify(known)?.slice(0, 200)}`,
    );
  const pool = await result<{ hash: Hex }[]>(ctx.target, 'txpool_besuTransactions');
  if (!pool.some((t) => t.hash === later.hash))
    problems.push(`txpool_besuTransactions expected to list the pending ${later.hash}`);
  const pending = await call(ctx.target, 'eth_getTransactionReceipt', [later.hash]);
  if (pending.error || pending.result !== null)
    problems.push(`receipt while pending expected null, got ${pending.http.text.slice(0, 200)}`);
  problems.push(...contract.validateResult('eth_getTransactionReceipt', pending.result));
  const first = await signDev(ctx.target, { to: sender, nonce, gas: 21_000n });
  await result(ctx.target, 'eth_sendRawTransaction', [first.raw]);
  await waitForReceipt(ctx.target, first.hash);
  const mined = await waitForReceipt(ctx.target, later.hash);
  problems.push(...contract.validateResult('eth_getTransactionReceipt', mined));
  if (mined.status !== '0x1')
    problems.push(`receipt once mined expected status 0x1, got ${JSON.stringify(mined.status)}`);
  return verdictOf(
    problems,
    `receipt of ${later.hash} was null while pending (nonce gap), then status ${String(mined.status)} in block ${String(mined.blockNumber)}`,
    { request: pending.request },
  );
}

/** The error, batch, lookup and permission checks. */
export function chainErrorChecks(): Check[] {
  return [
    errorCheck('chain.errors.parse_error', 'malformed JSON gets -32700 with id null', 'D-023', () => [
      { body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"', error: 'ParseError', id: null, what: 'truncated JSON' },
      { body: 'not json at all', error: 'ParseError', id: null, what: 'plain text' },
    ]),
    errorCheck(
      'chain.errors.invalid_request',
      'a request that is not a valid JSON-RPC 2.0 object gets -32600',
      'D-023',
      () => [
        { body: { jsonrpc: '2.0', id: 5, method: 42 }, error: 'InvalidRequest', id: 5, what: 'method is a number' },
        { body: { jsonrpc: '2.0', id: 6 }, error: 'InvalidRequest', id: 6, what: 'no method' },
        { body: '"eth_chainId"', error: 'InvalidRequest', id: null, what: 'a JSON string instead of an object' },
      ],
    ),
    errorCheck(
      'chain.errors.invalid_params',
      'params that break the OpenRPC schemas get -32602 before anything is relayed',
      'D-023',
      () => [
        {
          body: rpcBody(10, 'eth_getBalance', ['0x12', 'latest']),
          error: 'InvalidParams',
          id: 10,
          what: 'short address',
        },
        {
          body: rpcBody(11, 'eth_getBlockByNumber', ['tomorrow', false]),
          error: 'InvalidParams',
          id: 11,
          what: 'unknown block tag',
        },
        {
          body: rpcBody(12, 'eth_getBlockByHash', ['0x1234', false]),
          error: 'InvalidParams',
          id: 12,
          what: 'short block hash',
        },
        { body: rpcBody(13, 'eth_getBalance', []), error: 'InvalidParams', id: 13, what: 'missing required params' },
        {
          body: rpcBody(14, 'eth_call', [{ to: '0x1234', data: '0x' }, 'latest']),
          error: 'InvalidParams',
          id: 14,
          what: 'eth_call with a short "to" (D-254: null or left out is a contract creation)',
        },
        {
          body: rpcBody(15, 'eth_feeHistory', ['0x0', 'latest']),
          error: 'InvalidParams',
          id: 15,
          what: 'eth_feeHistory of 0 blocks (D-255)',
        },
      ],
    ),
    errorCheck(
      'chain.errors.method_not_found',
      'an unknown method outside the not-enabled groups gets -32601',
      'D-013',
      () => [
        { body: rpcBody(20, 'svckit_noSuchMethod'), error: 'MethodNotFound', id: 20, what: 'svckit_noSuchMethod' },
        { body: rpcBody(21, 'eth_noSuchMethod'), error: 'MethodNotFound', id: 21, what: 'eth_noSuchMethod' },
      ],
    ),
    errorCheck(
      'chain.errors.method_not_enabled',
      'mutating admin methods and disabled groups get -32604',
      'D-013',
      notEnabledProbes,
    ),
    errorCheck('chain.batch.empty', 'an empty batch gets one -32600 error object', 'D-051', () => [
      { body: [], error: 'InvalidRequest', id: null, what: 'empty batch' },
    ]),
    errorCheck(
      'chain.batch.oversized',
      'a batch of 101 requests gets one -32005 error object, not an array',
      'D-051',
      () => [
        {
          body: Array.from({ length: 101 }, (_, i) => rpcBody(i, 'eth_chainId')),
          error: 'LimitExceeded',
          id: null,
          what: '101 requests',
        },
      ],
    ),
    defineCheck({
      id: 'chain.batch.answers_each',
      title: 'a batch gets one response per request with an id, matched by id',
      source: { decision: 'D-051' },
      run: batchAnswersEach,
    }),
    defineCheck({
      id: 'chain.lookups.unknown_null',
      title: 'unknown blocks, transactions and receipts are null',
      source: { decision: 'D-074' },
      run: unknownLookupsNull,
    }),
    defineCheck({
      id: 'chain.permissioning.unfunded_sender',
      title: 'a transaction from an account the chain never funded gets -32007',
      source: { decision: 'D-050' },
      run: unfundedSender,
    }),
    defineCheck({
      id: 'chain.receipt.null_while_pending',
      title: 'the receipt of a known, unmined transaction is null, then appears once mined',
      source: { quote: 'eth_getTransactionReceipt returns null while the transaction is pending.' },
      needs: ['rpc', 'specs', 'reference'],
      run: receiptNullWhilePending,
    }),
  ];
}
