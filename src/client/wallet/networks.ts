/**
 * The chains one seed serves (specs/wallet.openapi.yaml, rule 7 and `ChainId`, D-065): the native
 * settlement network (EVM chain id 1111111), Ethereum and the EVM chains Arbitrum One, OP Mainnet, Base,
 * Polygon PoS and BNB Smart Chain, Bitcoin and Tron; custom EVM networks are registered at run time.
 * Isomorphic (no node: imports): the browser extension bundles it too.
 */
import { SvcError } from '../../errors.ts';

/** The key family of a chain: it fixes the derivation path and the address format (D-035). */
export type ChainFamily = 'evm' | 'bitcoin' | 'tron';

/** A chain the wallet knows: its `ChainId` string (D-065), family, display name, asset and RPC endpoint. */
export interface Network {
  /** `ChainId` of the contract: decimal EIP-155 id for EVM chains, `bitcoin` or `tron`. */
  chainId: string;
  family: ChainFamily;
  name: string;
  /** Asset symbol as in `HistoryItem.asset`: SVC, ETH, POL, BNB, BTC, TRX. */
  symbol: string;
  /** Decimals of the base unit: wei 18, satoshi 8, sun 6. */
  decimals: number;
  /**
   * Where the client signs against and broadcasts (rule 9): EVM JSON-RPC, an Esplora-compatible REST API
   * for Bitcoin, a TronGrid-compatible HTTP API for Tron. Unset until configured (D-124).
   */
  rpcUrl?: string;
  /** True for networks added at run time. */
  custom?: boolean;
}

/** The native settlement network's EIP-155 chain id (rule 7). */
export const NATIVE_CHAIN_ID = '1111111';

/** The built-in networks of rule 7, in the order of the `ChainId` examples. */
export const BUILTIN_NETWORKS: readonly Network[] = Object.freeze([
  {
    chainId: NATIVE_CHAIN_ID,
    family: 'evm',
    name: 'svckit native settlement network',
    symbol: 'SVC',
    decimals: 18,
    rpcUrl: 'https://localhost:8443/rpc',
  },
  { chainId: '1', family: 'evm', name: 'Ethereum', symbol: 'ETH', decimals: 18 },
  { chainId: '42161', family: 'evm', name: 'Arbitrum One', symbol: 'ETH', decimals: 18 },
  { chainId: '10', family: 'evm', name: 'OP Mainnet', symbol: 'ETH', decimals: 18 },
  { chainId: '8453', family: 'evm', name: 'Base', symbol: 'ETH', decimals: 18 },
  { chainId: '137', family: 'evm', name: 'Polygon PoS', symbol: 'POL', decimals: 18 },
  { chainId: '56', family: 'evm', name: 'BNB Smart Chain', symbol: 'BNB', decimals: 18 },
  { chainId: 'bitcoin', family: 'bitcoin', name: 'Bitcoin', symbol: 'BTC', decimals: 8 },
  { chainId: 'tron', family: 'tron', name: 'Tron', symbol: 'TRX', decimals: 6 },
] satisfies Network[]).map((n) => Object.freeze(n)) as readonly Network[];

/** `ChainId` pattern of the contract (D-065). */
export const CHAIN_ID_PATTERN = /^(bitcoin|tron|[1-9][0-9]{0,15})$/;

/** Thrown for an unknown chain or a malformed network. */
export class NetworkError extends SvcError<'INVALID_NETWORK'> {
  override name = 'NetworkError';
  /** Builds the error; its code is always `INVALID_NETWORK`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_NETWORK', message, options);
  }
}

/** Options of {@link NetworkRegistry.registerEvmNetwork}. */
export interface CustomEvmNetwork {
  /** EIP-155 chain id, decimal (number, bigint or string). */
  chainId: number | bigint | string;
  name: string;
  symbol: string;
  rpcUrl: string;
  /** Default 18. */
  decimals?: number;
}

/** The networks known to one wallet: the built-ins plus custom EVM networks added at run time (rule 7). */
export class NetworkRegistry {
  readonly #networks = new Map<string, Network>();

  /** Starts from the built-ins; `rpcUrls` sets or replaces their endpoints by `ChainId`. */
  constructor(rpcUrls: Record<string, string> = {}) {
    for (const network of BUILTIN_NETWORKS) this.#networks.set(network.chainId, { ...network });
    for (const [chainId, url] of Object.entries(rpcUrls)) this.setRpcUrl(chainId, url);
  }

  /** Every known network, built-ins first. */
  list(): Network[] {
    return [...this.#networks.values()].map((n) => ({ ...n }));
  }

  /** The network of a `ChainId`; NetworkError when unknown. */
  get(chainId: string | number | bigint): Network {
    const id = String(chainId);
    const network = this.#networks.get(id);
    if (!network)
      throw new NetworkError(
        `"chainId" expected one of ${[...this.#networks.keys()].join(', ')} (or a custom EVM network registered first), got "${id}"`,
      );
    return { ...network };
  }

  /** True when the `ChainId` is known. */
  has(chainId: string | number | bigint): boolean {
    return this.#networks.has(String(chainId));
  }

  /** Sets the RPC endpoint of a known network (http or https URL). */
  setRpcUrl(chainId: string, rpcUrl: string): void {
    const network = this.#networks.get(chainId);
    if (!network) throw new NetworkError(`"chainId" ${JSON.stringify(chainId)} is not a known network`);
    network.rpcUrl = checkedUrl(rpcUrl);
  }

  /** The RPC endpoint of a network; NetworkError when none is configured. */
  rpcUrl(chainId: string): string {
    const url = this.get(chainId).rpcUrl;
    if (!url)
      throw new NetworkError(
        `no RPC endpoint configured for chain ${chainId}: pass one in the NetworkRegistry constructor or setRpcUrl`,
      );
    return url;
  }

  /** Registers (or updates) a custom EVM network at run time (rule 7); keys use the EVM path m/44'/60'/0'/0/i. */
  registerEvmNetwork(custom: CustomEvmNetwork): Network {
    const chainId = typeof custom.chainId === 'string' ? custom.chainId : custom.chainId.toString(10);
    if (!/^[1-9][0-9]{0,15}$/.test(chainId))
      throw new NetworkError(
        `"chainId" expected a decimal EIP-155 chain id without leading zeros, 1 to 16 digits (D-065), got "${chainId}"`,
      );
    const existing = this.#networks.get(chainId);
    if (existing && !existing.custom)
      throw new NetworkError(
        `chain ${chainId} is the built-in ${existing.name}; set its endpoint with setRpcUrl instead`,
      );
    if (!custom.name.trim()) throw new NetworkError('"name" expected a non-empty string');
    if (!/^[A-Za-z0-9.-]{1,11}$/.test(custom.symbol))
      throw new NetworkError(
        `"symbol" expected 1 to 11 letters, digits, dots or dashes (EIP-3085), got "${custom.symbol}"`,
      );
    const decimals = custom.decimals ?? 18;
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36)
      throw new NetworkError(`"decimals" expected an integer 0 to 36, got ${decimals}`);
    const network: Network = {
      chainId,
      family: 'evm',
      name: custom.name.trim(),
      symbol: custom.symbol,
      decimals,
      rpcUrl: checkedUrl(custom.rpcUrl),
      custom: true,
    };
    this.#networks.set(chainId, network);
    return { ...network };
  }

  /** Removes a custom network; built-ins cannot be removed. */
  removeEvmNetwork(chainId: string): boolean {
    const existing = this.#networks.get(chainId);
    if (existing && !existing.custom) throw new NetworkError(`chain ${chainId} is built in and cannot be removed`);
    return this.#networks.delete(chainId);
  }
}

/** The EIP-155 chain id of an EVM `ChainId` as a hex quantity (EIP-1193 eth_chainId), e.g. 0x10f447. */
export function chainIdHex(chainId: string): `0x${string}` {
  if (!/^[1-9][0-9]{0,15}$/.test(chainId))
    throw new NetworkError(`"chainId" expected a decimal EVM chain id, got "${chainId}"`);
  return `0x${BigInt(chainId).toString(16)}`;
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NetworkError(`"rpcUrl" expected an absolute http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new NetworkError(`"rpcUrl" expected http: or https:, got "${parsed.protocol}"`);
  return parsed.href;
}
