/**
 * Who may use the wallet and where it reads: an origin must be connected (4100 otherwise) and name one of
 * the wallet's accounts; the selected chain needs a JSON-RPC endpoint (4901 otherwise).
 */
import { NATIVE_CHAIN_ID } from '@svckit/sdk/wallet-library/browser';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import type { RouterDeps } from './router.ts';
import type { WalletState } from './state.ts';

/** The selected chain's JSON-RPC endpoint; 4901 when none is configured. */
export function endpointOf(state: WalletState | undefined, chainId = state?.chainId ?? NATIVE_CHAIN_ID): string {
  const url = state?.rpcUrls[chainId];
  if (!url)
    throw new ProviderRpcError(
      ERRORS.chainDisconnected,
      `no JSON-RPC endpoint configured for chain ${chainId}: set the gateway in the extension options`,
    );
  return url;
}

/** Connected origins get the account; 4100 otherwise. Returns the index of `address` (or of account 0). */
export async function accountIndex(
  origin: string,
  state: WalletState,
  deps: RouterDeps,
  address?: string,
): Promise<number> {
  if (!(await deps.connected()).includes(origin))
    throw new ProviderRpcError(ERRORS.unauthorized, 'call eth_requestAccounts first');
  if (address === undefined) return 0;
  const index = state.accounts.findIndex((a) => a.toLowerCase() === address.toLowerCase());
  if (index < 0) throw new ProviderRpcError(ERRORS.unauthorized, `${address} is not an account of this wallet`);
  return index;
}
