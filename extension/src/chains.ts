/**
 * wallet_switchEthereumChain (EIP-3326) and wallet_addEthereumChain (EIP-3085) over the wallet library's
 * network registry (src/client/wallet/networks.ts), the same one the Node library uses: the built-in
 * networks plus custom EVM networks. A chain the wallet has no endpoint for is 4902; switching emits
 * `chainChanged` to every page (EIP-1193). Adding asks the user, checks that the endpoint serves the chain,
 * and does not switch (D-175).
 */
import { chainIdHex, NetworkError, NetworkRegistry, type Network } from '../../src/client/wallet/browser.ts';
import { addChainParams, switchChainParams } from './params.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import { accountIndex } from './access.ts';
import type { RouterDeps } from './router.ts';
import type { WalletState } from './state.ts';

/** The networks of a wallet state: built-ins with the configured endpoints, and its custom networks. */
export function registryOf(state: WalletState): NetworkRegistry {
  const registry = new NetworkRegistry();
  for (const [chainId, url] of Object.entries(state.rpcUrls)) {
    const custom = state.networks?.[chainId];
    if (registry.has(chainId)) registry.setRpcUrl(chainId, url);
    else if (custom) registry.registerEvmNetwork({ chainId, rpcUrl: url, ...custom });
  }
  return registry;
}

/** The selected (or given) chain's network; a chain with an endpoint but no metadata gets a plain name. */
export function networkOf(state: WalletState, chainId = state.chainId): Network {
  const registry = registryOf(state);
  return registry.has(chainId)
    ? registry.get(chainId)
    : { chainId, family: 'evm', name: `EVM chain ${chainId}`, symbol: 'ETH', decimals: 18 };
}

/** EIP-3326: switch to a chain the wallet has an endpoint for; 4902 otherwise. */
export async function switchChain(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const chainId = switchChainParams(params);
  await accountIndex(origin, state, deps);
  if (!state.rpcUrls[chainId])
    throw new ProviderRpcError(
      ERRORS.unrecognizedChain,
      `chain ${chainIdHex(chainId)} is not added to this wallet: add it with wallet_addEthereumChain first`,
    );
  if (chainId !== state.chainId) {
    await deps.saveState({ ...state, chainId });
    deps.emit('chainChanged', chainIdHex(chainId));
  }
  return null;
}

/** EIP-3085: add a custom EVM network (or an endpoint for a built-in one) after the user approves. */
export async function addChain(origin: string, params: unknown, state: WalletState, deps: RouterDeps) {
  const request = addChainParams(params);
  await accountIndex(origin, state, deps);
  if (state.rpcUrls[request.chainId] === request.rpcUrl) return null; // already added: nothing to ask
  const registry = registryOf(state);
  const builtin = registry.has(request.chainId) && !registry.get(request.chainId).custom;
  try {
    if (builtin) registry.setRpcUrl(request.chainId, request.rpcUrl);
    else registry.registerEvmNetwork({ ...request });
  } catch (error) {
    if (error instanceof NetworkError) throw new ProviderRpcError(ERRORS.invalidParams, error.message);
    throw error;
  }
  // EIP-3085: the wallet checks that the endpoint serves the chain before the user is asked.
  const served = await deps.forward(request.rpcUrl, 'eth_chainId', []);
  if (typeof served !== 'string' || served.toLowerCase() !== chainIdHex(request.chainId))
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `the endpoint ${new URL(request.rpcUrl).origin} serves chain ${String(served)}, not ${chainIdHex(request.chainId)}`,
    );
  const known = builtin ? registry.get(request.chainId) : undefined;
  const decision = await deps.approve({
    kind: 'addChain',
    origin,
    rows: [
      { label: 'Network', value: known ? `${known.name} (built in)` : request.name },
      { label: 'Chain ID', value: `${request.chainId} (${chainIdHex(request.chainId)})` },
      { label: 'Currency', value: known ? known.symbol : request.symbol },
      { label: 'RPC endpoint', value: request.rpcUrl },
      ...(request.blockExplorerUrl ? [{ label: 'Block explorer', value: request.blockExplorerUrl }] : []),
    ],
    password: false,
  });
  if (!decision.approved) throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected adding the network');
  const current = (await deps.state()) ?? state;
  await deps.saveState({
    ...current,
    rpcUrls: { ...current.rpcUrls, [request.chainId]: request.rpcUrl },
    ...(builtin
      ? {}
      : {
          networks: {
            ...current.networks,
            [request.chainId]: { name: request.name, symbol: request.symbol, decimals: request.decimals },
          },
        }),
  });
  return null;
}
