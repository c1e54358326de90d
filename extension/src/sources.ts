/**
 * Where the wallet reads from besides the native chain's gateway (WalletState.rpcUrls): the wallet session
 * API and the Ethereum, Bitcoin and Tron endpoints of the view. Set on the options page and kept once, in
 * chrome.storage.local (public URLs only); the provider (fee configuration, svckit_requestSession, D-174)
 * and the wallet view (login at unlock, GET /history, balances, D-177) read the same value.
 */
import { chromeApi } from './chrome.ts';
import { VIEW_KEYS } from './view-lock.ts';

/** Default wallet session API of the reference stack (specs/wallet.openapi.yaml: https://localhost:8444). */
export const DEFAULT_WALLET_API = 'https://localhost:8444';

/** The configured sources. */
export interface ViewSources {
  /** `{wallet_api_url}`: the wallet session API (fee configuration, session login, GET /history). */
  walletApiUrl: string;
  /** Ethereum JSON-RPC; unset means "not configured". */
  ethereum?: string;
  /** Esplora-compatible Bitcoin API. */
  bitcoin?: string;
  /** TronGrid-compatible Tron API. */
  tron?: string;
}

/** The sources as stored, with the default wallet session API. */
export async function readSources(): Promise<ViewSources> {
  const stored = (await chromeApi().storage.local.get(VIEW_KEYS.sources))[VIEW_KEYS.sources] as
    | Partial<ViewSources>
    | undefined;
  return { walletApiUrl: DEFAULT_WALLET_API, ...stored };
}

/** Stores the sources (each an http(s) URL or absent); throws a readable Error for anything else. */
export async function saveSources(sources: ViewSources): Promise<void> {
  const checked: ViewSources = { walletApiUrl: checkedUrl('Wallet session API', sources.walletApiUrl) };
  for (const key of ['ethereum', 'bitcoin', 'tron'] as const) {
    const value = sources[key]?.trim();
    if (value) checked[key] = checkedUrl(key, value);
  }
  await chromeApi().storage.local.set({ [VIEW_KEYS.sources]: checked });
}

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${name}: expected an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${name}: expected http: or https:, got ${url.protocol}`);
  if (url.username || url.password) throw new Error(`${name}: put no user name or password in the URL`);
  return url.href;
}
