/**
 * Shared parts of the surface C checks: JSON-RPC calls over the harness's HTTPS client, validation of
 * results and error objects against specs/chain.openrpc.json (OpenRPC 1.3: JSON Schema draft-07), the
 * harness's allow-listed senders (D-152) and a tiny log-emitting contract.
 */
import { readFile } from 'node:fs/promises';
import { concat, keccak256, size, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { CheckContext, CheckRequest, CheckVerdict } from '../../catalogue.ts';
import { registerCreated } from '../../cleanup.ts';
import { request, rpcUrl, type HttpResult } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { checkDefiner, Unavailable } from '../define.ts';
import { deref, isObject, type Segment } from '../spec-examples/pointer.ts';
import { DocumentValidator } from '../spec-examples/validator.ts';

/** Defines a surface-C check (needs: the service host and the contract unless it names its own). */
export const defineCheck = checkDefiner({ surface: 'C', needs: ['rpc', 'specs'] });

/** spec: "Chain ID is 1111111 (hex 0x10F447)". */
export const CHAIN_ID = 1111111;

/**
 * A sender of the harness on `target`: a fresh key, made here, whose address the target's administrator
 * allow-lists and funds through `POST /admin/v1/chain/accounts` (D-152), one per target and `role`. The
 * reference chain allow-lists no published development key (D-151), so every write needs such a sender.
 */
export function devAccount(target: Target, role = 'default'): Promise<PrivateKeyAccount> {
  let byRole = senders.get(target);
  if (!byRole) {
    byRole = new Map();
    senders.set(target, byRole);
  }
  let sender = byRole.get(role);
  if (!sender) {
    // D-193: a bare node's funded key (`--rpc-sender-key`) is the sender of every role.
    sender = target.rpcSenderKey
      ? Promise.resolve(privateKeyToAccount(target.rpcSenderKey))
      : allowAndFund(target, privateKeyToAccount(generatePrivateKey()));
    byRole.set(role, sender);
    // A failed attempt is not kept: the next check tries again.
    sender.catch(() => byRole.delete(role));
  }
  return sender;
}

const senders = new WeakMap<Target, Map<string, Promise<PrivateKeyAccount>>>();

/** What each harness sender is funded with: far more than the checks spend, far less than the funding account holds. */
const SENDER_FUNDING = '1000000.00';

async function allowAndFund(target: Target, account: PrivateKeyAccount): Promise<PrivateKeyAccount> {
  if (!target.adminToken)
    throw new Unavailable(
      'a sender on this chain needs the administrator token (D-152: POST /admin/v1/chain/accounts) or --rpc-sender-key (D-193)',
    );
  const res = await request(target, 'admin/v1/chain/accounts', {
    method: 'POST',
    headers: { authorization: `Bearer ${target.adminToken}` },
    body: { address: account.address, amount: SENDER_FUNDING },
  });
  if (res.status !== 201)
    throw new Error(
      `allow-listing the harness sender ${account.address}: HTTP ${res.status} ${res.text.slice(0, 200)}`,
    );
  // D-152: the sender leaves the allow-list when the run ends (cleanup, D-182).
  registerCreated(target, {
    kind: 'chain sender',
    id: account.address,
    async undo() {
      const gone = await request(target, `admin/v1/chain/accounts/${account.address}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${target.adminToken}` },
      });
      if (gone.status !== 204 && gone.status !== 404)
        throw new Error(`DELETE /admin/v1/chain/accounts answered HTTP ${gone.status}: ${gone.text.slice(0, 200)}`);
    },
  });
  return account;
}

/** A JSON-RPC error object as received. */
export type RpcError = { code: number; message: string; data?: unknown };

/** One JSON-RPC exchange: the HTTP result plus the parsed response members. */
export type RpcExchange = { http: HttpResult; result: unknown; error: RpcError | undefined; request: CheckRequest };

/** POSTs one JSON-RPC request to `{base_url}/rpc` (spec: "POST {base_url}/rpc with header Content-Type: application/json"). */
export async function call(
  target: Target,
  method: string,
  params: unknown[] = [],
  id: number | string = 1,
): Promise<RpcExchange> {
  const http = await request(target, rpcUrl(target), { body: { jsonrpc: '2.0', id, method, params } });
  const body = http.json as { result?: unknown; error?: RpcError } | undefined;
  return { http, result: body?.result, error: body?.error, request: http.request };
}

/** Calls `method` and returns its result; throws a readable error on an HTTP or JSON-RPC failure. */
export async function result<T = unknown>(target: Target, method: string, params: unknown[] = []): Promise<T> {
  const x = await call(target, method, params);
  if (x.http.status !== 200) throw new Error(`${method}: HTTP ${x.http.status} ${x.http.text.slice(0, 200)}`);
  if (x.error)
    throw new Error(
      `${method}: JSON-RPC error ${x.error.code} ${x.error.message}${x.error.data ? ` (${JSON.stringify(x.error.data)})` : ''}`,
    );
  if (!isObject(x.http.json) || !('result' in x.http.json))
    throw new Error(`${method}: response has no result: ${x.http.text.slice(0, 200)}`);
  return x.result as T;
}

/** The chain contract, parsed once per specs directory, with a draft-07 validator over it. */
export class ChainContract {
  private static readonly cache = new Map<string, Promise<ChainContract>>();
  private readonly validator: DocumentValidator;

  private constructor(readonly doc: Record<string, unknown>) {
    this.validator = new DocumentValidator(doc, 'draft-07', 'chain.openrpc.json');
  }

  /** Loads specs/chain.openrpc.json from the run's specs directory. */
  static load(ctx: Pick<CheckContext, 'specsDir'>): Promise<ChainContract> {
    const url = new URL('chain.openrpc.json', ctx.specsDir).href;
    let loaded = ChainContract.cache.get(url);
    if (!loaded) {
      loaded = readFile(new URL(url), 'utf8').then(
        (text) => new ChainContract(JSON.parse(text) as Record<string, unknown>),
      );
      ChainContract.cache.set(url, loaded);
    }
    return loaded;
  }

  /** The method names of the contract, excluding the WebSocket-only ones (D-012). */
  httpMethods(): string[] {
    return this.methods()
      .filter((m) => m.node['x-transport'] !== 'websocket')
      .map((m) => String(m.node.name));
  }

  /** Validates a result against the method's result schema; returns error lines (empty when valid). */
  validateResult(method: string, value: unknown): string[] {
    const found = this.methods().find((m) => m.node.name === method);
    if (!found) return [`${method} is not a method of chain.openrpc.json`];
    const descriptor = deref(this.doc, [...found.at, 'result']);
    return this.validator.validate({ where: `${method} result`, value, schemaAt: [...descriptor.at, 'schema'] });
  }

  /** Validates a value against `#/components/schemas/<name>`. */
  validateSchema(name: string, value: unknown): string[] {
    return this.validator.validate({ where: name, value, schemaAt: ['components', 'schemas', name] });
  }

  /** The contract's error object `components/errors/<name>` (D-023): its code and standard message. */
  error(name: string): { code: number; message: string } {
    const errors = (this.doc.components as { errors?: Record<string, { code: number; message: string }> }).errors ?? {};
    const found = errors[name];
    if (!found) throw new Error(`chain.openrpc.json has no components/errors/${name}`);
    return { code: found.code, message: found.message };
  }

  private methods(): { node: Record<string, unknown>; at: Segment[] }[] {
    const list = Array.isArray(this.doc.methods) ? this.doc.methods : [];
    return list
      .map((_m, i) => deref(this.doc, ['methods', i]))
      .filter((m): m is { node: Record<string, unknown>; at: Segment[] } => isObject(m.node));
  }
}

/**
 * Checks that an answer is one JSON-RPC error object (not an array) with the contract's code and message
 * (D-023: JSON-RPC 2.0 error object, HTTP 200). Returns a failure reason or undefined.
 */
export function errorProblem(
  contract: ChainContract,
  http: HttpResult,
  errorName: string,
  id: unknown,
): string | undefined {
  const want = contract.error(errorName);
  if (http.status !== 200) return `HTTP status expected 200 (D-023), got ${http.status}`;
  const body = http.json;
  if (!isObject(body)) return `expected one JSON-RPC response object, got ${http.text.slice(0, 200)}`;
  if (body.jsonrpc !== '2.0') return `"jsonrpc" expected "2.0", got ${JSON.stringify(body.jsonrpc)}`;
  if ('result' in body) return `expected an error, got result ${JSON.stringify(body.result).slice(0, 200)}`;
  if (body.id !== id) return `"id" expected ${JSON.stringify(id)}, got ${JSON.stringify(body.id)}`;
  const shape = contract.validateSchema('JsonRpcError', body.error);
  if (shape.length) return `error object does not match JsonRpcError: ${shape.join('; ')}`;
  const error = body.error as RpcError;
  if (error.code !== want.code)
    return `error code expected ${want.code} (${errorName}), got ${error.code} ${JSON.stringify(error.message)}`;
  if (error.message !== want.message)
    return `error message expected ${JSON.stringify(want.message)} (components/errors/${errorName}), got ${JSON.stringify(error.message)}`;
  return undefined;
}

/** A failed verdict, or a pass, from a list of problems. */
export function verdictOf(
  problems: string[],
  passed: string,
  detail: Omit<CheckVerdict, 'status' | 'reason'> = {},
): CheckVerdict {
  if (problems.length === 0) return { status: 'passed', reason: passed, ...detail };
  return {
    status: 'failed',
    reason: problems.slice(0, 4).join('; ') + (problems.length > 4 ? `; … (${problems.length} problems)` : ''),
    ...detail,
    actual: problems,
  };
}

/** A skip for targets that cannot drive the chain. */
export const needsReference = (ctx: CheckContext): CheckVerdict | undefined =>
  ctx.target.reference
    ? undefined
    : { status: 'skipped', reason: 'needs the in-process reference stack to drive the chain' };

/**
 * A skip for checks that send transactions: they need the reference stack (its administrator funds a sender,
 * D-152, and it seals blocks on demand) or a bare node's funded key (`--rpc-sender-key`, D-193).
 */
export const needsSender = (ctx: CheckContext): CheckVerdict | undefined =>
  ctx.target.reference || ctx.target.rpcSenderKey
    ? undefined
    : {
        status: 'skipped',
        reason:
          'needs a funded, allow-listed sender: the in-process reference stack (admin API, D-152) or --rpc-sender-key (D-193)',
      };

/** The event topic the test contract logs: keccak-256 of `Ping(uint256)`. */
export const PING_TOPIC: Hex = keccak256(toHex('Ping(uint256)'));

/**
 * The test contract's runtime: on every call it logs LOG1(Ping, 42), increments storage slot 0 and
 * returns the word 42. Hand-assembled so the harness needs no compiler.
 */
export const PING_RUNTIME: Hex = concat([
  '0x602a600052', // mstore(0, 42)
  '0x7f',
  PING_TOPIC,
  '0x60206000a1', // log1(0, 32, topic)
  '0x600054600101600055', // sstore(0, sload(0) + 1)
  '0x60206000f3', // return(0, 32)
]);

/** Deployment code: sets slot 0 to 7, then returns PING_RUNTIME (16-byte constructor prefix). */
export const PING_INIT_CODE: Hex = concat([
  '0x6007600055', // sstore(0, 7)
  '0x60',
  toHex(size(PING_RUNTIME), { size: 1 }),
  '0x80', // push len, dup
  '0x6010600039', // codecopy(0, 16, len)
  '0x6000f3', // return(0, len)
  PING_RUNTIME,
]);

/** The word 42 as eth_call returns it. */
export const WORD_42: Hex = `0x${'2a'.padStart(64, '0')}`;

/** Signs a zero-gas-price transaction with the harness's sender (spec: "The gas price is always 0"). */
export async function signDev(
  target: Target,
  tx: { to?: Hex; data?: Hex; nonce?: number; gas?: bigint; type?: 'legacy' | 'eip1559' },
  sender?: PrivateKeyAccount,
): Promise<{ raw: Hex; hash: Hex; nonce: number }> {
  const account = sender ?? (await devAccount(target));
  const nonce =
    tx.nonce ?? Number(BigInt(await result<string>(target, 'eth_getTransactionCount', [account.address, 'latest'])));
  const common = {
    chainId: CHAIN_ID,
    nonce,
    gas: tx.gas ?? 200_000n,
    ...(tx.to ? { to: tx.to } : {}),
    ...(tx.data ? { data: tx.data } : {}),
    value: 0n,
  };
  const raw =
    tx.type === 'eip1559'
      ? await account.signTransaction({ ...common, type: 'eip1559', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
      : await account.signTransaction({ ...common, type: 'legacy', gasPrice: 0n });
  return { raw, hash: keccak256(raw), nonce };
}

/** Polls for a receipt (instant mining seals right after the send); asks the reference stack for a block if slow. */
export async function waitForReceipt(target: Target, hash: Hex, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const receipt = await result<Record<string, unknown> | null>(target, 'eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    if (attempt === 20) await target.reference?.mineBlock();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
}
