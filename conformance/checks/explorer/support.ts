// Shared helpers of the explorer (surface D) checks: calling {base}/api and {base}/rpc, validating each
// answer against the response schema of specs/explorer.openapi.yaml, and creating the transactions a check
// needs: on the reference target from a sender the harness allow-lists and funds (D-152), elsewhere a transfer
// through the institutional API when the run holds the administrator token and the chain has none (D-241).
import { getAddress, type Hex } from 'viem';
import type { Check, CheckContext } from '../../catalogue.ts';
import { request, rpcUrl, type HttpResult } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { checkDefiner, verdict, type CheckDefinition } from '../define.ts';
import { devAccount } from '../chain/support.ts';
import { madeTransfer, mayCreate } from '../support/made-transfer.ts';
import { deref, isObject } from '../spec-examples/pointer.ts';
import { openApiContract } from '../support/openapi.ts';

/** Defines a surface-D check (needs: the service host unless it names its own). */
export const defineCheck = checkDefiner({ surface: 'D', needs: ['base'] });

/** The explorer contract, parsed once per specs directory, with a validator over its schemas. */
export const explorerContract = (specsDir: URL) => openApiContract(specsDir, 'explorer.openapi.yaml');

/** GET `{base}/api/<path>`. */
export function api(target: Target, path: string): Promise<HttpResult> {
  return request(target, `api/${path}`);
}

/**
 * Problems with an answer to GET `/api<route>`: a status other than `status`, a status the contract does
 * not declare for the operation, a non-JSON content type, or a body that fails the declared schema.
 */
export async function responseProblems(
  ctx: CheckContext,
  route: string,
  res: HttpResult,
  status: number,
): Promise<string[]> {
  const { doc, validator } = await explorerContract(ctx.specsDir);
  const where = `GET ${new URL(res.request.url).pathname}`;
  const responses = (doc.paths as Record<string, { get: { responses: Record<string, unknown> } }>)[route]?.get
    .responses;
  if (!responses) return [`the contract has no operation GET ${route}`];
  const problems: string[] = [];
  if (res.status !== status)
    problems.push(`${where}: expected HTTP ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  if (!(String(res.status) in responses)) {
    problems.push(
      `${where}: HTTP ${res.status} is not a status the contract declares (${Object.keys(responses).join(', ')})`,
    );
    return problems;
  }
  if (!/^application\/json\b/.test(res.headers['content-type'] ?? '')) {
    problems.push(
      `${where}: expected content-type application/json, got ${JSON.stringify(res.headers['content-type'])}`,
    );
  }
  const { node, at } = deref(doc, ['paths', route, 'get', 'responses', String(res.status)]);
  if (!isObject(node) || !isObject(node.content))
    return [...problems, `${where}: the contract gives no body schema for ${res.status}`];
  if (res.json === undefined) return [...problems, `${where}: the body is not JSON: ${res.text.slice(0, 200)}`];
  problems.push(
    ...validator.validate({ where, value: res.json, schemaAt: [...at, 'content', 'application/json', 'schema'] }),
  );
  return problems;
}

/** A check that GET `/api<route>` answers 200 with the body the contract declares; `path` fills in the route's parameters. */
export function schemaCheck(route: string, definition: Omit<CheckDefinition, 'run'> & { path?: () => string }): Check {
  const { path, ...rest } = definition;
  return defineCheck({
    ...rest,
    async run(ctx) {
      const res = await api(ctx.target, path ? path() : route.slice(1));
      return verdict(await responseProblems(ctx, route, res, 200), res);
    },
  });
}

/** Problems unless GET `/api<route>` answers 400 naming its one path parameter for each of `values` (D-040, D-041). */
export async function badParameterProblems(
  ctx: CheckContext,
  route: string,
  values: readonly string[],
): Promise<string[]> {
  const field = /\{(\w+)\}/.exec(route)![1]!;
  const problems: string[] = [];
  for (const value of values) {
    const res = await api(ctx.target, route.slice(1).replace(`{${field}}`, encodeURIComponent(value)));
    problems.push(...(await responseProblems(ctx, route, res, 400)));
    const error = (res.json as { error?: string } | undefined)?.error ?? '';
    if (res.status === 400 && !error.includes(`"${field}"`))
      problems.push(`400 for ${JSON.stringify(value)} does not name the field "${field}": ${JSON.stringify(error)}`);
  }
  return problems;
}

/** Calls a JSON-RPC method on the target's chain endpoint ({@link rpcUrl}) and returns its result; throws on an error object. */
export async function rpcResult<T = unknown>(target: Target, method: string, params: unknown[] = []): Promise<T> {
  const [result] = await rpcBatch<T>(target, [{ method, params }]);
  return result as T;
}

/**
 * Calls methods on the target's chain endpoint in JSON-RPC batches of at most 100 (D-051); results in call order.
 * The endpoint is the node given by `--rpc` when there is one (D-192), else `{base}/rpc`.
 */
export async function rpcBatch<T = unknown>(
  target: Target,
  calls: readonly { method: string; params: unknown[] }[],
): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < calls.length; start += 100) {
    const chunk = calls.slice(start, start + 100);
    const endpoint = rpcUrl(target);
    const res = await request(target, endpoint, {
      body: chunk.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params })),
    });
    if (!Array.isArray(res.json))
      throw new Error(`POST ${endpoint.href} (batch) answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    const byId = new Map(
      (res.json as { id: number; result?: T; error?: { code: number; message: string } }[]).map((r) => [r.id, r]),
    );
    chunk.forEach((c, i) => {
      const r = byId.get(i);
      if (!r || r.error)
        throw new Error(`${c.method} failed at ${endpoint.href}: ${JSON.stringify(r?.error ?? 'no response')}`);
      results.push(r.result as T);
    });
  }
  return results;
}

/** The hex-encoded fields of the node's block object (JSON-RPC) that the checks read. */
type RpcBlockField =
  | 'number'
  | 'hash'
  | 'parentHash'
  | 'timestamp'
  | 'gasUsed'
  | 'gasLimit'
  | 'miner'
  | 'size'
  | 'extraData';

/** The node's block object (JSON-RPC), as far as the checks read it: hex fields and its transaction hashes. */
export type RpcBlock = Record<RpcBlockField, Hex> & { transactions: Hex[] };

/** eth_blockNumber as a number. */
export async function headNumber(target: Target): Promise<number> {
  return Number(BigInt(await rpcResult<Hex>(target, 'eth_blockNumber')));
}

/** GET `/api/<path>` between two reads of eth_blockNumber, so the head it reports can be placed between them. */
export async function betweenHeads(
  target: Target,
  path: string,
): Promise<{ before: number; res: HttpResult; after: number }> {
  const before = await headNumber(target);
  const res = await api(target, path);
  return { before, res, after: await headNumber(target) };
}

/** On the reference target, seals empty blocks until the chain has at least `height` + 1 blocks. */
export async function ensureHeight(target: Target, height: number): Promise<void> {
  if (!target.reference) return;
  for (let head = await headNumber(target); head < height; head++) await target.reference.mineBlock();
}

/** Blocks by number (transactions as hashes), in the order asked. */
export function blocksByNumber(target: Target, numbers: readonly number[]): Promise<(RpcBlock | null)[]> {
  return rpcBatch<RpcBlock | null>(
    target,
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })),
  );
}

/** The explorer block the contract expects for a node block (the oracle: field by field from JSON-RPC). */
export function expectedBlock(b: RpcBlock): Record<string, unknown> {
  const int = (h: Hex) => Number(BigInt(h));
  return {
    number: int(b.number),
    hash: b.hash.toLowerCase(),
    parentHash: b.parentHash.toLowerCase(),
    timestamp: int(b.timestamp),
    gasUsed: int(b.gasUsed),
    gasLimit: int(b.gasLimit),
    txCount: b.transactions.length,
    transactions: b.transactions.map((t) => t.toLowerCase()),
    miner: getAddress(b.miner),
    size: int(b.size),
    extraData: b.extraData.toLowerCase(),
  };
}

/** Wei as units with four fraction digits, truncated toward zero (D-033), computed independently of the server. */
export function fourDecimals(wei: bigint): string {
  const text = wei.toString().padStart(19, '0');
  return `${text.slice(0, -18)}.${text.slice(-18, -14)}`;
}

/** Differences between two JSON values, as `path: expected X, got Y` lines. */
export function differences(expected: unknown, actual: unknown, path = ''): string[] {
  if (isObject(expected) && isObject(actual)) {
    return Object.keys(expected).flatMap((k) => differences(expected[k], actual[k], `${path}.${k}`));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((e, i) => differences(e, actual[i], `${path}[${i}]`));
  }
  return JSON.stringify(expected) === JSON.stringify(actual)
    ? []
    : [`${path || '(value)'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Options of a transaction sent by a check on the reference target. */
/** `sender` names one of the harness's senders (devAccount); each role has its own key and nonces. */
export type SendOptions = {
  to?: Hex | null;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  sender?: string;
  nonceGap?: number;
};

/**
 * Signs (viem) and sends a legacy transaction with gas price 0 through `{base}/rpc` (spec: "The gas price
 * is always 0"), from a sender the target's administrator allow-listed and funded (D-152).
 */
export async function sendTransaction(target: Target, options: SendOptions = {}): Promise<Hex> {
  const account = await devAccount(target, options.sender);
  const [chainId, nonce] = await rpcBatch<Hex>(target, [
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getTransactionCount', params: [account.address.toLowerCase(), 'pending'] },
  ]);
  const signed = await account.signTransaction({
    type: 'legacy',
    chainId: Number(BigInt(chainId!)),
    nonce: Number(BigInt(nonce!)) + (options.nonceGap ?? 0),
    to: options.to === undefined ? '0x000000000000000000000000000000000000dEaD' : options.to,
    value: options.value ?? 1n,
    gas: options.gas ?? 21_000n,
    gasPrice: 0n,
    ...(options.data ? { data: options.data } : {}),
  });
  return rpcResult<Hex>(target, 'eth_sendRawTransaction', [signed]);
}

/** The receipt of `hash` once mined; seals a block on the reference target if none came by itself. */
export async function waitForReceipt(
  target: Target,
  hash: Hex,
  timeoutMs = 15_000,
): Promise<{ blockNumber: Hex; status: Hex; gasUsed: Hex }> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const receipt = await rpcResult<{ blockNumber: Hex; status: Hex; gasUsed: Hex } | null>(
      target,
      'eth_getTransactionReceipt',
      [hash],
    );
    if (receipt) return receipt;
    if (attempt === 10) await target.reference?.mineBlock();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${hash} was not mined within ${timeoutMs} ms`);
}

/** Sends a transaction and waits until it is mined (reference target). */
export async function minedTransaction(target: Target, options: SendOptions = {}): Promise<Hex> {
  const hash = await sendTransaction(target, options);
  await waitForReceipt(target, hash);
  return hash;
}

/** A random 20-byte address no one has used (checksummed). */
export function freshAddress(): Hex {
  return getAddress(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`);
}

/** A random 32-byte hash in lower case. */
export function randomHash(): Hex {
  return `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`;
}

/**
 * A mined transaction to look at: on the reference target a fresh one; elsewhere the newest in /txns, or in the
 * last 200 blocks read over JSON-RPC, or else one made through the institutional API when the run holds the
 * administrator token (D-241). Undefined when there is none and none can be made.
 */
export async function someTransaction(target: Target): Promise<Hex | undefined> {
  if (target.reference) return minedTransaction(target, { value: 125_500_000_000_000_000_000n });
  const listed = await api(target, 'txns');
  if (Array.isArray(listed.json) && listed.json.length) return (listed.json[0] as { hash: Hex }).hash;
  return (await recentTransaction(target)) ?? (mayCreate(target) ? madeTransfer(target) : undefined);
}

/** The newest transaction of the last 200 blocks, read over JSON-RPC; undefined when they hold none. */
export async function recentTransaction(target: Target): Promise<Hex | undefined> {
  const head = await headNumber(target);
  const numbers = Array.from({ length: Math.min(200, head + 1) }, (_, i) => head - i);
  for (const block of await blocksByNumber(target, numbers))
    if (block?.transactions.length) return block.transactions.at(-1);
  return undefined;
}
