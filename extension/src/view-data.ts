/**
 * What the wallet view shows, read with the wallet library's own code: the networks and their endpoints
 * (networks.ts), the balances (balances.ts) and the activity feed (GET /history of the wallet session API,
 * through the generated client, D-014/D-087).
 */
import {
  createWalletClient,
  NATIVE_CHAIN_ID,
  NetworkRegistry,
  readBalance,
  walletGetHistory,
  type BalanceReading,
  type HistoryResponse,
  type Network,
} from '@svckit/sdk/wallet-library/browser';
import type { ViewSources } from './sources.ts';
import type { WalletState } from './state.ts';
import { timedFetch, type Unlocked } from './view-state.ts';

/** The chains the view lists, in order: the native network, Ethereum, Bitcoin, Tron. */
export const VIEW_CHAINS: readonly string[] = Object.freeze([NATIVE_CHAIN_ID, '1', 'bitcoin', 'tron']);
/** How long GET /history may take. */
export const HISTORY_TIMEOUT_MS = 10_000;
/** At most this many feed items are shown. */
export const HISTORY_SHOWN = 20;

/** The view's networks with the endpoints configured for them (none where none is configured). */
export function viewNetworks(state: WalletState, sources: ViewSources): Network[] {
  const registry = new NetworkRegistry();
  const urls: Record<string, string | undefined> = {
    [NATIVE_CHAIN_ID]: state.rpcUrls[NATIVE_CHAIN_ID],
    '1': sources.ethereum ?? state.rpcUrls['1'],
    bitcoin: sources.bitcoin,
    tron: sources.tron,
  };
  return VIEW_CHAINS.map((chainId) => {
    const network = registry.get(chainId);
    const { rpcUrl: _builtin, ...rest } = network;
    const url = urls[chainId];
    return url ? { ...rest, rpcUrl: url } : rest;
  });
}

/** The unlocked address of a network's key family. */
export function addressOf(network: Network, unlocked: Unlocked): string {
  return unlocked.addresses[network.family];
}

/** Every listed network's balance, each settled on its own (one slow source does not hold up the others). */
export function readBalances(
  networks: Network[],
  unlocked: Unlocked,
  onReading: (reading: BalanceReading) => void,
): Promise<void> {
  return Promise.all(
    networks.map(async (network) => onReading(await readBalance(network, addressOf(network, unlocked)))),
  ).then(() => undefined);
}

/** The native account's feed, or why it cannot be read. */
export async function readHistory(
  sources: ViewSources,
  unlocked: Unlocked,
): Promise<{ feed: HistoryResponse } | { error: string }> {
  if ('error' in unlocked.session) return { error: unlocked.session.error };
  const token = unlocked.session.token;
  const client = createWalletClient({
    baseUrl: new URL(sources.walletApiUrl).origin,
    fetch: timedFetch(HISTORY_TIMEOUT_MS),
    auth: () => token,
  });
  try {
    const answer = await walletGetHistory({
      client,
      query: { chainId: NATIVE_CHAIN_ID, address: unlocked.addresses.evm },
    });
    if (answer.data) return { feed: answer.data };
    const detail = (answer.error as { error?: string } | undefined)?.error ?? 'no detail';
    return { error: `GET /history answered ${answer.response?.status ?? 'nothing'}: ${detail}` };
  } catch (error) {
    return { error: `${sources.walletApiUrl} is unreachable: ${(error as Error).message}` };
  }
}
