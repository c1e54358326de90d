/**
 * Balances of one address per chain, read from the chain's own endpoint (rule 9; the same endpoints the
 * sends use, D-124): an EVM JSON-RPC (`eth_chainId`, then `eth_getBalance` at `latest`), an
 * Esplora-compatible REST API for Bitcoin (`GET /address/:a`, confirmed funded minus spent outputs) and a
 * TronGrid-compatible HTTP API for Tron (`POST /wallet/getaccount`, `balance` in sun). A chain with no
 * endpoint, or one that does not answer, is `unavailable` with the reason: never a made-up zero (D-177).
 * Isomorphic (fetch only, no node: imports): the browser extension bundles it too.
 */
import type { Network } from './networks.ts';

/** How long one source may take before it counts as unreachable. */
export const BALANCE_TIMEOUT_MS = 5_000;
/** Largest answer read from a source (a balance answer is a few hundred bytes). */
export const MAX_BALANCE_ANSWER = 64 * 1024;

/** One chain's balance, or why there is none. */
export type BalanceReading =
  | {
      chainId: string;
      address: string;
      status: 'available';
      /** Base units (wei, satoshi, sun). */
      value: bigint;
      symbol: string;
      decimals: number;
      /** Origin of the endpoint that answered. */
      source: string;
    }
  | {
      chainId: string;
      address: string;
      status: 'unavailable';
      /** What went wrong, for the user; never contains credentials of the endpoint URL. */
      reason: string;
      source?: string;
    };

/** Options of {@link readBalance}. */
export interface BalanceOptions {
  /** fetch to use (a custom CA, the browser's). */
  fetch?: typeof fetch;
  /** Default {@link BALANCE_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** Reads the balance of `address` on `network` from the network's configured endpoint. */
export async function readBalance(
  network: Network,
  address: string,
  options: BalanceOptions = {},
): Promise<BalanceReading> {
  const base = { chainId: network.chainId, address };
  if (!network.rpcUrl) return { ...base, status: 'unavailable', reason: `no ${network.name} endpoint is configured` };
  const source = new URL(network.rpcUrl).origin;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? BALANCE_TIMEOUT_MS;
  const call = async (url: string, init?: RequestInit): Promise<unknown> => {
    const response = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    if (text.length > MAX_BALANCE_ANSWER) throw new Error(`the answer is larger than ${MAX_BALANCE_ANSWER} bytes`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return JSON.parse(text) as unknown;
  };
  try {
    const value = await (network.family === 'evm'
      ? evmBalance(call, network, address)
      : network.family === 'bitcoin'
        ? bitcoinBalance(call, network.rpcUrl, address)
        : tronBalance(call, network.rpcUrl, address));
    return { ...base, status: 'available', value, symbol: network.symbol, decimals: network.decimals, source };
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : message(error);
    return { ...base, status: 'unavailable', reason: `${source} is unreachable: ${reason}`, source };
  }
}

/** A base-unit amount as a decimal string with `decimals` places, trailing zeros dropped: 1500000000000000000n, 18 -> "1.5". */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

type Call = (url: string, init?: RequestInit) => Promise<unknown>;

async function evmBalance(call: Call, network: Network, address: string): Promise<bigint> {
  const rpc = async (method: string, params: unknown[]): Promise<string> => {
    const body = (await call(network.rpcUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })) as { result?: unknown; error?: { message?: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message ?? 'error'}`);
    if (typeof body.result !== 'string' || !/^0x[0-9a-f]+$/i.test(body.result))
      throw new Error(`${method} answered ${JSON.stringify(body.result)}, expected a hex quantity`);
    return body.result;
  };
  const chainId = BigInt(await rpc('eth_chainId', []));
  if (chainId.toString() !== network.chainId)
    throw new Error(`the endpoint serves chain ${chainId}, not ${network.chainId}`);
  return BigInt(await rpc('eth_getBalance', [address, 'latest']));
}

async function bitcoinBalance(call: Call, api: string, address: string): Promise<bigint> {
  const body = (await call(`${api.replace(/\/$/, '')}/address/${address}`)) as {
    chain_stats?: { funded_txo_sum?: unknown; spent_txo_sum?: unknown };
  };
  const funded = body.chain_stats?.funded_txo_sum;
  const spent = body.chain_stats?.spent_txo_sum;
  if (!Number.isSafeInteger(funded) || !Number.isSafeInteger(spent))
    throw new Error('the answer has no chain_stats.funded_txo_sum / spent_txo_sum');
  return BigInt(funded as number) - BigInt(spent as number);
}

async function tronBalance(call: Call, api: string, address: string): Promise<bigint> {
  const body = (await call(`${api.replace(/\/$/, '')}/wallet/getaccount`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, visible: true }),
  })) as { balance?: unknown; Error?: unknown };
  if (body.Error !== undefined) throw new Error(`getaccount: ${String(body.Error)}`);
  // java-tron answers {} for an account that has never been activated: it holds nothing.
  if (body.balance === undefined) return 0n;
  if (!Number.isSafeInteger(body.balance)) throw new Error(`balance ${JSON.stringify(body.balance)} is not an integer`);
  return BigInt(body.balance as number);
}

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // fetch errors may carry the URL; strip any user:password@ part of it.
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}
