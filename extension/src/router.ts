/**
 * How the wallet answers each EIP-1193 request ("It answers eth_chainId and eth_requestAccounts
 * from the wallet, and forwards reads to the gateway"). Pure logic over injected dependencies, so it runs in
 * the service worker and in tests alike.
 *   from the wallet:   eth_chainId, net_version, eth_accounts, eth_requestAccounts, wallet_switchEthereumChain,
 *                      wallet_revokePermissions, personal_sign (after approval and the keystore password)
 *   to the gateway:    the read-only methods of READ_METHODS, on the selected chain's JSON-RPC endpoint
 *   refused:           everything else, 4200 (EIP-1193 "Unsupported Method").
 */
import { chainIdHex } from '../../src/client/wallet/networks.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import type { WalletState } from './state.ts';

/** Read-only JSON-RPC methods forwarded to the selected chain's endpoint (nothing that signs or sends). */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_syncing',
  'net_listening',
  'web3_clientVersion',
]);

/** What the router needs from its host. */
export interface RouterDeps {
  /** The stored wallet, or undefined before setup. */
  state(): Promise<WalletState | undefined>;
  /** Origins the user connected. */
  connected(): Promise<string[]>;
  /** Records an origin as connected (or not). */
  setConnected(origin: string, connected: boolean): Promise<void>;
  /** Persists a changed wallet state. */
  saveState(state: WalletState): Promise<void>;
  /** Asks the user; resolves with the decision (and the password for a signature). */
  approve(request: ApprovalRequest): Promise<{ approved: boolean; password?: string }>;
  /** Sends a JSON-RPC request to an endpoint; resolves with `result` or rejects with a ProviderRpcError. */
  forward(url: string, method: string, params: unknown): Promise<unknown>;
  /** Signs a personal_sign message with account `index` after opening the keystore with `password`. */
  personalSign(state: WalletState, password: string, index: number, message: Uint8Array): Promise<string>;
  /** Tells every page of `origin` (or all) about an event. */
  emit(event: 'accountsChanged' | 'chainChanged', data: unknown, origin?: string): void;
}

/** A request the user decides on in approve.html. */
export type ApprovalRequest =
  | { kind: 'connect'; origin: string; accounts: string[] }
  | { kind: 'sign'; origin: string; account: string; message: string };

/** Answers one request from `origin` (the browser-reported origin of the page). */
export async function route(origin: string, method: string, params: unknown, deps: RouterDeps): Promise<unknown> {
  if (typeof method !== 'string' || method.length === 0)
    throw new ProviderRpcError(ERRORS.invalidParams, 'request expected a method name');
  const state = await deps.state();
  switch (method) {
    case 'eth_chainId':
      return chainIdHex(state?.chainId ?? '1111111');
    case 'net_version':
      return state?.chainId ?? '1111111';
    case 'eth_accounts':
      return state && (await deps.connected()).includes(origin) ? state.accounts.slice(0, 1) : [];
    case 'eth_requestAccounts': {
      if (!state)
        throw new ProviderRpcError(
          ERRORS.unauthorized,
          'the svckit wallet is not set up yet: open the extension options to create or import a wallet',
        );
      if ((await deps.connected()).includes(origin)) return state.accounts.slice(0, 1);
      const decision = await deps.approve({ kind: 'connect', origin, accounts: state.accounts.slice(0, 1) });
      if (!decision.approved)
        throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected the connection request');
      await deps.setConnected(origin, true);
      deps.emit('accountsChanged', state.accounts.slice(0, 1), origin);
      return state.accounts.slice(0, 1);
    }
    case 'wallet_revokePermissions':
      await deps.setConnected(origin, false);
      deps.emit('accountsChanged', [], origin);
      return null;
    case 'wallet_switchEthereumChain': {
      const requested = (Array.isArray(params) ? params[0] : undefined) as { chainId?: unknown } | undefined;
      if (typeof requested?.chainId !== 'string' || !/^0x[1-9a-f][0-9a-f]*$/i.test(requested.chainId))
        throw new ProviderRpcError(ERRORS.invalidParams, 'wallet_switchEthereumChain expected [{chainId: "0x..."}]');
      if (!state) throw new ProviderRpcError(ERRORS.unauthorized, 'the svckit wallet is not set up yet');
      const decimal = BigInt(requested.chainId).toString(10);
      if (!state.rpcUrls[decimal])
        throw new ProviderRpcError(
          ERRORS.unrecognizedChain,
          `chain ${requested.chainId} has no RPC endpoint in this wallet`,
        );
      if (decimal !== state.chainId) {
        await deps.saveState({ ...state, chainId: decimal });
        deps.emit('chainChanged', chainIdHex(decimal));
      }
      return null;
    }
    case 'personal_sign':
      return personalSign(origin, params, state, deps);
  }
  if (READ_METHODS.has(method)) {
    const chainId = state?.chainId ?? '1111111';
    const url = state?.rpcUrls[chainId];
    if (!url)
      throw new ProviderRpcError(
        ERRORS.chainDisconnected,
        `no JSON-RPC endpoint configured for chain ${chainId}: set the gateway in the extension options`,
      );
    return deps.forward(url, method, params ?? []);
  }
  throw new ProviderRpcError(ERRORS.unsupportedMethod, `the svckit wallet does not support ${method}`);
}

async function personalSign(
  origin: string,
  params: unknown,
  state: WalletState | undefined,
  deps: RouterDeps,
): Promise<string> {
  if (!state) throw new ProviderRpcError(ERRORS.unauthorized, 'the svckit wallet is not set up yet');
  if (!(await deps.connected()).includes(origin))
    throw new ProviderRpcError(ERRORS.unauthorized, 'call eth_requestAccounts first');
  const [data, address] = Array.isArray(params) ? (params as unknown[]) : [];
  if (typeof data !== 'string' || typeof address !== 'string')
    throw new ProviderRpcError(ERRORS.invalidParams, 'personal_sign expected [message, address]');
  const index = state.accounts.findIndex((a) => a.toLowerCase() === address.toLowerCase());
  if (index < 0) throw new ProviderRpcError(ERRORS.unauthorized, `${address} is not an account of this wallet`);
  const bytes = /^0x([0-9a-f]{2})*$/i.test(data)
    ? Uint8Array.from((data.slice(2).match(/../g) ?? []).map((h) => parseInt(h, 16)))
    : new TextEncoder().encode(data);
  const decision = await deps.approve({
    kind: 'sign',
    origin,
    account: state.accounts[index]!,
    message: new TextDecoder().decode(bytes),
  });
  if (!decision.approved || !decision.password)
    throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected the signature request');
  return deps.personalSign(state, decision.password, index, bytes);
}
