/**
 * How the wallet answers each EIP-1193 request. Pure logic over injected dependencies, so it runs in the
 * service worker and in tests alike.
 *   from the wallet:   eth_chainId, net_version, eth_accounts, eth_requestAccounts, wallet_revokePermissions,
 *                      wallet_switchEthereumChain, wallet_addEthereumChain (chains.ts)
 *   after approval:    personal_sign, eth_sendTransaction, eth_signTransaction, eth_signTypedData_v4 (signing.ts),
 *                      svckit_requestSession (session.ts, D-174)
 *   to the gateway:    the read-only methods of READ_METHODS, on the selected chain's JSON-RPC endpoint
 *   refused:           everything else, 4200 (EIP-1193 "Unsupported Method").
 * Errors are EIP-1193 / EIP-1474 codes (protocol.ts ERRORS); malformed params are -32602 (params.ts).
 */
import { chainIdHex, NATIVE_CHAIN_ID } from '@svckit/sdk/wallet-library/browser';
import type { ApprovalDecision, ApprovalRequest } from './approval.ts';
import { addChain, switchChain } from './chains.ts';
import { endpointOf } from './access.ts';
import { checkSize } from './params.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import { requestSession } from './session.ts';
import { personalSign, sendTransaction, signTransaction, signTypedData } from './signing.ts';
import type { WalletState } from './state.ts';

export type { ApprovalRequest } from './approval.ts';

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
  /** Asks the user; resolves with the decision (and the password when the request opens the keystore). */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Sends a JSON-RPC request to an endpoint; resolves with `result` or rejects with a ProviderRpcError. */
  forward(url: string, method: string, params: unknown): Promise<unknown>;
  /**
   * Opens the keystore with `password` and runs `use` with the 64-byte BIP-39 seed, which is zeroed after;
   * a wrong password rejects with a ProviderRpcError 4100.
   */
  withSeed<T>(state: WalletState, password: string, use: (seed: Uint8Array) => Promise<T>): Promise<T>;
  /** `{wallet_api_url}`: the wallet session API set on the options page (sources.ts), never one a page names (D-174). */
  walletApiUrl(): Promise<string>;
  /** A JSON request to the wallet session API (GET without a body, POST with one); never throws on a status. */
  walletApi(url: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Tells every page of `origin` (or all) about an event. */
  emit(event: 'accountsChanged' | 'chainChanged' | 'connect' | 'disconnect', data: unknown, origin?: string): void;
}

/** Chains whose endpoint failed, per host, until a read succeeds again (EIP-1193 disconnect / connect). */
const unreachable = new WeakMap<RouterDeps, Set<string>>();

/** Answers one request from `origin` (the browser-reported origin of the page). */
export async function route(origin: string, method: string, params: unknown, deps: RouterDeps): Promise<unknown> {
  if (typeof method !== 'string' || method.length === 0 || method.length > 64)
    throw new ProviderRpcError(ERRORS.invalidParams, 'request expected a method name of 1 to 64 characters');
  if (params !== undefined && params !== null && typeof params !== 'object')
    throw new ProviderRpcError(ERRORS.invalidParams, `${method} params expected an array or an object`);
  checkSize(method, params);
  const state = await deps.state();
  switch (method) {
    case 'eth_chainId':
      return chainIdHex(state?.chainId ?? NATIVE_CHAIN_ID);
    case 'net_version':
      return state?.chainId ?? NATIVE_CHAIN_ID;
    case 'eth_accounts':
      return state && (await deps.connected()).includes(origin) ? state.accounts.slice(0, 1) : [];
    case 'eth_requestAccounts': {
      if (!state)
        throw new ProviderRpcError(
          ERRORS.unauthorized,
          'the svckit wallet is not set up yet: open the extension options to create or import a wallet',
        );
      if ((await deps.connected()).includes(origin)) return state.accounts.slice(0, 1);
      const decision = await deps.approve({
        kind: 'connect',
        origin,
        rows: [{ label: 'Account', value: state.accounts[0] ?? '' }],
        password: false,
      });
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
    case 'wallet_switchEthereumChain':
      return switchChain(origin, params, ready(state), deps);
    case 'wallet_addEthereumChain':
      return addChain(origin, params, ready(state), deps);
    case 'personal_sign':
      return personalSign(origin, params, ready(state), deps);
    case 'eth_sendTransaction':
      return sendTransaction(origin, params, ready(state), deps);
    case 'eth_signTransaction':
      return signTransaction(origin, params, ready(state), deps);
    case 'eth_signTypedData_v4':
      return signTypedData(origin, params, ready(state), deps);
    case 'svckit_requestSession':
      return requestSession(origin, params, ready(state), deps);
  }
  if (READ_METHODS.has(method)) return read(method, params, state, deps);
  throw new ProviderRpcError(ERRORS.unsupportedMethod, `the svckit wallet does not support ${method}`);
}

/** The state, or 4100 before the wallet is set up. */
function ready(state: WalletState | undefined): WalletState {
  if (!state) throw new ProviderRpcError(ERRORS.unauthorized, 'the svckit wallet is not set up yet');
  return state;
}

/** Forwards a read; emits `disconnect` (4900) when the endpoint stops answering and `connect` when it is back. */
async function read(
  method: string,
  params: unknown,
  state: WalletState | undefined,
  deps: RouterDeps,
): Promise<unknown> {
  const chainId = state?.chainId ?? NATIVE_CHAIN_ID;
  const url = endpointOf(state, chainId);
  const down = unreachable.get(deps) ?? new Set<string>();
  unreachable.set(deps, down);
  try {
    const result = await deps.forward(url, method, params ?? []);
    if (down.delete(chainId)) deps.emit('connect', { chainId: chainIdHex(chainId) });
    return result;
  } catch (error) {
    if (error instanceof ProviderRpcError && error.code === ERRORS.chainDisconnected && !down.has(chainId)) {
      down.add(chainId);
      deps.emit('disconnect', { code: ERRORS.disconnected, message: error.message });
    }
    throw error;
  }
}
