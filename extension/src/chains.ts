/**
 * wallet_switchEthereumChain (EIP-3326) and wallet_addEthereumChain (EIP-3085) over the wallet library's
 * network registry (src/client/wallet/networks.ts), the same one the Node library uses: the built-in
 * networks plus custom EVM networks. A chain the wallet has no endpoint for is 4902; switching emits
 * `chainChanged` to every page (EIP-1193). Adding asks the user first, only then checks that the endpoint
 * serves the chain, and does not switch (D-175); the page learns nothing of the endpoint's answer, and the
 * native chain's endpoint comes only from the options page (D-226).
 */
import {
  chainIdHex,
  NATIVE_CHAIN_ID,
  NetworkError,
  NetworkRegistry,
  type Network,
} from '@svckit/sdk/wallet-library/browser';
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
  // D-226: the same answer whatever URL is named, so a page cannot test guesses of the configured gateway.
  if (request.chainId === NATIVE_CHAIN_ID)
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `chain ${chainIdHex(NATIVE_CHAIN_ID)} is the wallet's native chain: its endpoint is set in the extension options, not by a site`,
    );
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
      { label: 'Check', value: 'once you approve, the wallet asks this endpoint which chain it serves' },
    ],
    password: false,
  });
  if (!decision.approved) throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected adding the network');
  await checkServes(request.rpcUrl, request.chainId, deps);
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

/**
 * EIP-3085: the endpoint must answer eth_chainId with the chain. D-226: asked only after the user approved (the
 * service worker reaches addresses a page cannot), and whatever the endpoint answers, or however it fails, the
 * page gets the same refusal: its answer's text never reaches the page.
 */
async function checkServes(rpcUrl: string, chainId: string, deps: RouterDeps): Promise<void> {
  let served: unknown;
  try {
    served = await deps.forward(rpcUrl, 'eth_chainId', []);
  } catch {
    served = undefined;
  }
  if (typeof served !== 'string' || served.toLowerCase() !== chainIdHex(chainId))
    throw new ProviderRpcError(
      ERRORS.invalidParams,
      `the endpoint ${new URL(rpcUrl).origin} did not answer eth_chainId with ${chainIdHex(chainId)}; the network was not added`,
    );
}
