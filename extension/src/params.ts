/**
 * Strict checks of the params of the EIP-1193 methods that sign, send or change the chain. Anything malformed
 * or over a bound is -32602 (EIP-1474 "Invalid params") naming the field, before the user is asked anything.
 */
import { checkTypedData, toChecksumAddress, type EvmTransactionDraft } from '@svckit/sdk/wallet-library/browser';
import { ERRORS, ProviderRpcError } from './protocol.ts';

/** Bounds of what a page may send (every limit bounded). */
export const LIMITS = Object.freeze({
  /** JSON size of one request's params. */
  paramsBytes: 256 * 1024,
  /** Bytes of transaction `data` (EIP-3860 initcode is at most 49,152 bytes; calldata rarely more). */
  dataBytes: 128 * 1024,
  /** Bytes of a personal_sign message. */
  messageBytes: 64 * 1024,
  /** Characters of a chain name and of a URL in wallet_addEthereumChain. */
  chainName: 64,
  url: 2048,
});

const fail = (message: string): never => {
  throw new ProviderRpcError(ERRORS.invalidParams, message);
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The params as an array of at most `max` entries (EIP-1474 by-position params). */
export function positional(method: string, params: unknown, min: number, max: number): unknown[] {
  const list = params === undefined ? [] : params;
  if (!Array.isArray(list) || list.length < min || list.length > max)
    fail(`${method} expected params as an array of ${min === max ? min : `${min} to ${max}`} entries`);
  return list as unknown[];
}

/** Throws -32602 when the params' JSON is over {@link LIMITS}.paramsBytes. */
export function checkSize(method: string, params: unknown): void {
  let size = 0;
  try {
    size = params === undefined ? 0 : JSON.stringify(params).length;
  } catch {
    fail(`${method} params are not JSON`);
  }
  if (size > LIMITS.paramsBytes) fail(`${method} params are ${size} bytes of JSON, at most ${LIMITS.paramsBytes}`);
}

function quantity(field: string, value: unknown): bigint {
  if (typeof value !== 'string' || !QUANTITY.test(value))
    fail(`"${field}" expected a hex quantity (0x, no leading zeros, at most 256 bits)`);
  return BigInt(value as string);
}

function address(field: string, value: unknown): `0x${string}` {
  if (typeof value !== 'string' || !ADDRESS.test(value)) fail(`"${field}" expected an address, 0x + 40 hex`);
  const text = value as string;
  const mixed = /[a-f]/.test(text.slice(2)) && /[A-F]/.test(text.slice(2));
  if (mixed && toChecksumAddress(text) !== text) fail(`"${field}" has a wrong EIP-55 checksum`);
  return text as `0x${string}`;
}

/** A checked transaction object of eth_sendTransaction / eth_signTransaction, with its `from`. */
export interface TransactionParams {
  from: `0x${string}`;
  /** Decimal chain id the page named, when it named one. */
  chainId?: string;
  draft: EvmTransactionDraft;
}

const TX_FIELDS = new Set([
  'from',
  'to',
  'value',
  'data',
  'input',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'nonce',
  'chainId',
  'type',
  'accessList',
]);

/** Checks `[tx]` of eth_sendTransaction and eth_signTransaction (EIP-1474 transaction object). */
export function transactionParams(method: string, params: unknown): TransactionParams {
  const [tx] = positional(method, params, 1, 1);
  if (!isObject(tx)) return fail(`${method} expected [{from, to?, value?, data?, gas?, gasPrice?, nonce?}]`);
  for (const key of Object.keys(tx)) if (!TX_FIELDS.has(key)) fail(`${method}: unknown transaction field "${key}"`);
  const from = address('from', tx.from);
  if (tx.to === undefined && tx.data === undefined && tx.input === undefined)
    fail(`${method} expected "to", or "data" for a contract creation`);
  if (tx.data !== undefined && tx.input !== undefined && tx.data !== tx.input)
    fail(`${method}: "data" and "input" differ`);
  const data = tx.data ?? tx.input;
  if (data !== undefined && (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data)))
    fail('"data" expected 0x + an even number of hex digits');
  if (typeof data === 'string' && (data.length - 2) / 2 > LIMITS.dataBytes)
    fail(`"data" is ${(data.length - 2) / 2} bytes, at most ${LIMITS.dataBytes}`);
  if (tx.type !== undefined && tx.type !== '0x0' && tx.type !== '0x2')
    fail('"type" expected 0x0 (legacy) or 0x2 (EIP-1559)');
  if (tx.accessList !== undefined && (!Array.isArray(tx.accessList) || tx.accessList.length > 0))
    fail('"accessList" is not supported: expected none or []');
  if (tx.gasPrice !== undefined && (tx.maxFeePerGas !== undefined || tx.maxPriorityFeePerGas !== undefined))
    fail('"gasPrice" and "maxFeePerGas"/"maxPriorityFeePerGas" exclude each other');
  const nonce = tx.nonce === undefined ? undefined : quantity('nonce', tx.nonce);
  if (nonce !== undefined && nonce > BigInt(Number.MAX_SAFE_INTEGER)) fail('"nonce" is too large');
  const gas = tx.gas === undefined ? undefined : quantity('gas', tx.gas);
  if (gas !== undefined && gas > 30_000_000n) fail('"gas" expected at most 30,000,000');
  const draft: EvmTransactionDraft = {
    value: tx.value === undefined ? 0n : quantity('value', tx.value),
    ...(tx.to !== undefined && tx.to !== null ? { to: address('to', tx.to) } : {}),
    ...(typeof data === 'string' && data !== '0x' ? { data: data as `0x${string}` } : {}),
    ...(nonce !== undefined ? { nonce: Number(nonce) } : {}),
    ...(gas !== undefined ? { gas } : {}),
    ...(tx.gasPrice !== undefined ? { gasPrice: quantity('gasPrice', tx.gasPrice) } : {}),
    ...(tx.maxFeePerGas !== undefined ? { maxFeePerGas: quantity('maxFeePerGas', tx.maxFeePerGas) } : {}),
    ...(tx.maxPriorityFeePerGas !== undefined
      ? { maxPriorityFeePerGas: quantity('maxPriorityFeePerGas', tx.maxPriorityFeePerGas) }
      : {}),
  };
  if (draft.maxPriorityFeePerGas !== undefined && draft.maxFeePerGas === undefined)
    fail('"maxPriorityFeePerGas" needs "maxFeePerGas"');
  const chainId = tx.chainId === undefined ? undefined : quantity('chainId', tx.chainId).toString(10);
  return { from, draft, ...(chainId ? { chainId } : {}) };
}

/** Checks `[address, typedData]` of eth_signTypedData_v4; typed data may be a JSON string or an object. */
export function typedDataParams(method: string, params: unknown) {
  const [who, raw] = positional(method, params, 2, 2);
  const account = address('address', who);
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > 64 * 1024) fail(`${method}: typed data is over 65,536 characters of JSON`);
    try {
      value = JSON.parse(raw);
    } catch {
      fail(`${method}: typed data is not valid JSON`);
    }
  }
  try {
    return { account, typedData: checkTypedData(value) };
  } catch (error) {
    return fail(`${method}: ${(error as Error).message}`);
  }
}

/** Checks `[message, address]` of personal_sign; returns the message bytes (hex data, else UTF-8 text). */
export function personalSignParams(params: unknown): { bytes: Uint8Array; account: `0x${string}` } {
  const [data, who] = positional('personal_sign', params, 2, 3);
  if (typeof data !== 'string') fail('personal_sign expected [message, address]');
  const account = address('address', who);
  const text = data as string;
  const bytes = /^0x([0-9a-f]{2})*$/i.test(text)
    ? Uint8Array.from((text.slice(2).match(/../g) ?? []).map((h) => parseInt(h, 16)))
    : new TextEncoder().encode(text);
  if (bytes.length > LIMITS.messageBytes)
    fail(`personal_sign message is ${bytes.length} bytes, at most ${LIMITS.messageBytes}`);
  return { bytes, account };
}

/** Checks `[{chainId}]` of wallet_switchEthereumChain (EIP-3326); returns the decimal chain id. */
export function switchChainParams(params: unknown): string {
  const [request] = positional('wallet_switchEthereumChain', params, 1, 1);
  if (!isObject(request) || Object.keys(request).some((k) => k !== 'chainId'))
    fail('wallet_switchEthereumChain expected [{chainId: "0x..."}]');
  return chainIdParam((request as Record<string, unknown>).chainId);
}

function chainIdParam(value: unknown): string {
  if (typeof value !== 'string' || !/^0x[1-9a-f][0-9a-f]{0,13}$/i.test(value))
    fail('"chainId" expected a hex EIP-155 chain id without leading zeros, e.g. "0x10f447"');
  return BigInt(value as string).toString(10);
}

/** A checked wallet_addEthereumChain request (EIP-3085 AddEthereumChainParameter). */
export interface AddChainParams {
  chainId: string;
  name: string;
  symbol: string;
  decimals: number;
  rpcUrl: string;
  blockExplorerUrl?: string;
}

const ADD_FIELDS = new Set(['chainId', 'chainName', 'nativeCurrency', 'rpcUrls', 'blockExplorerUrls', 'iconUrls']);

/** Checks `[AddEthereumChainParameter]` of wallet_addEthereumChain (EIP-3085). */
export function addChainParams(params: unknown): AddChainParams {
  const [p] = positional('wallet_addEthereumChain', params, 1, 1);
  if (!isObject(p)) return fail('wallet_addEthereumChain expected [{chainId, chainName, nativeCurrency, rpcUrls}]');
  for (const key of Object.keys(p)) if (!ADD_FIELDS.has(key)) fail(`wallet_addEthereumChain: unknown field "${key}"`);
  const chainId = chainIdParam(p.chainId);
  if (typeof p.chainName !== 'string' || !p.chainName.trim() || p.chainName.length > LIMITS.chainName)
    fail(`"chainName" expected 1 to ${LIMITS.chainName} characters`);
  const currency = p.nativeCurrency;
  if (!isObject(currency) || typeof currency.symbol !== 'string' || !/^[A-Za-z0-9.-]{2,6}$/.test(currency.symbol))
    fail('"nativeCurrency" expected {name, symbol (2 to 6 characters, EIP-3085), decimals: 18}');
  if ((currency as Record<string, unknown>).decimals !== 18) fail('"nativeCurrency.decimals" expected 18 (EIP-3085)');
  const urls = (list: unknown, field: string, required: boolean): string | undefined => {
    if (list === undefined && !required) return undefined;
    if (!Array.isArray(list) || (required && list.length === 0) || list.length > 8)
      fail(`"${field}" expected an array of 1 to 8 URLs`);
    for (const u of list as unknown[]) {
      if (typeof u !== 'string' || u.length > LIMITS.url)
        fail(`"${field}" expected URLs of at most ${LIMITS.url} characters`);
      let url: URL;
      try {
        url = new URL(u as string);
      } catch {
        return fail(`"${field}" has an entry that is not a URL`);
      }
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['localhost', '127.0.0.1'].includes(url.hostname)))
        fail(`"${field}" expected https URLs (http only on localhost)`);
    }
    return (list as string[])[0];
  };
  const rpcUrl = urls(p.rpcUrls, 'rpcUrls', true)!;
  const blockExplorerUrl = urls(p.blockExplorerUrls, 'blockExplorerUrls', false);
  if (p.iconUrls !== undefined) urls(p.iconUrls, 'iconUrls', false);
  return {
    chainId,
    name: (p.chainName as string).trim(),
    symbol: (currency as Record<string, string>).symbol!,
    decimals: 18,
    rpcUrl,
    ...(blockExplorerUrl ? { blockExplorerUrl } : {}),
  };
}

/** Checks the params of svckit_requestSession (D-174): none, `[]`, or `[{}]`. */
export function sessionParams(params: unknown): void {
  const list = positional('svckit_requestSession', params, 0, 1);
  if (list.length === 1 && (!isObject(list[0]) || Object.keys(list[0]).length > 0))
    fail('svckit_requestSession expected no params (D-174)');
}
