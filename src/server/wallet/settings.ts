/**
 * Settings of the wallet session API (surface E), read from the environment and validated at start like
 * src/config.ts (a bad value is a ConfigError naming the variable). D-024 gives the rate limits, D-014 the
 * fee configuration; the history sources of chains other than the native one (RPC or indexer URLs) are
 * configured here.
 */
import path from 'node:path';
import { ConfigError } from '../../config-error.ts';
import { addressKind, checksumOk } from './addresses.ts';

/** How a history source is queried. */
export type SourceKind = 'esplora' | 'etherscan' | 'trongrid';

/** One configured history source of a chain other than the native one. */
export type HistorySourceConfig = { chainId: string; kind: SourceKind; url: string; name: string };

/** Validated wallet settings. */
export type WalletSettings = {
  /** SVC_RATE_LIMIT_WALLET: requests per second per IP on every wallet endpoint (D-024: 20); 0 lifts it. */
  requestsPerSecond: number;
  /** SVC_RATE_LIMIT_SITE: requests per second per IP on the site origin (D-146: 50); 0 lifts it. */
  siteRequestsPerSecond: number;
  /** SVC_RATE_LIMIT_WALLET_AUTH: requests per second per IP on /auth/challenge and /auth/verify (D-024: 5); 0 lifts it. */
  authRequestsPerSecond: number;
  /** SVC_WALLET_PUBLIC_URL: {wallet_api_url} as clients reach it (message domain, token iss/aud); default the listening origin. */
  publicUrl: string | undefined;
  /** SVC_SITE_PUBLIC_URL: {site_url} for the extension download; default the site origin's listening URL. */
  sitePublicUrl: string | undefined;
  /** SVC_WALLET_FEE_BPS: platform fee in basis points, 0 to 10000 (D-014). Default 25. */
  feeBps: number;
  /** SVC_WALLET_FEE_COLLECTORS: `chainId=address,...`; default none. */
  feeCollectors: { chainId: string; address: string }[];
  /** SVC_WALLET_HISTORY_SOURCES: JSON array of {chainId, kind, url, name?}; default none (only the native chain). */
  historySources: HistorySourceConfig[];
  /** SVC_WALLET_HISTORY_TIMEOUT_MS: per-source time-out. Default 5000. */
  historyTimeoutMs: number;
  /** SVC_WALLET_EXTENSION_DIR: the built extension (manifest.json inside). Default `dist/extension`. */
  extensionDir: string;
};

type Env = Record<string, string | undefined>;

const CHAIN_ID = /^(bitcoin|tron|[1-9][0-9]{0,15})$/;
const KINDS: Record<SourceKind, (chainId: string) => boolean> = {
  esplora: (c) => c === 'bitcoin',
  trongrid: (c) => c === 'tron',
  etherscan: (c) => /^[1-9]/.test(c) && c !== '1111111',
};

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name} expected a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

function httpsUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' || url.pathname !== '/' || url.search) throw new Error();
    return url.origin;
  } catch {
    throw new ConfigError(`${name} expected an https origin such as https://wallet.example.com, got "${raw}"`);
  }
}

function collectors(env: Env): { chainId: string; address: string }[] {
  const raw = env.SVC_WALLET_FEE_COLLECTORS ?? '';
  const seen = new Set<string>();
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((entry, i) => {
    const [chainId = '', address = ''] = entry.split('=');
    const kind = addressKind(address);
    const fits = kind === 'evm' ? /^[1-9]/.test(chainId) && checksumOk(address) : kind === chainId;
    if (!CHAIN_ID.test(chainId) || !fits || seen.has(chainId)) {
      throw new ConfigError(`SVC_WALLET_FEE_COLLECTORS[${i}] expected chainId=address (one per chain, the address of that chain), got "${entry}"`);
    }
    seen.add(chainId);
    return { chainId, address };
  });
}

function sources(env: Env): HistorySourceConfig[] {
  const raw = env.SVC_WALLET_HISTORY_SOURCES;
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`SVC_WALLET_HISTORY_SOURCES expected a JSON array of {chainId, kind, url, name?}, got "${raw.slice(0, 80)}"`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError('SVC_WALLET_HISTORY_SOURCES expected a JSON array of {chainId, kind, url, name?}');
  return parsed.map((item: Record<string, unknown>, i) => {
    const where = `SVC_WALLET_HISTORY_SOURCES[${i}]`;
    const { chainId, kind, url, name } = item ?? {};
    if (typeof chainId !== 'string' || !CHAIN_ID.test(chainId)) throw new ConfigError(`${where}.chainId expected bitcoin, tron or an EVM chain id, got ${JSON.stringify(chainId)}`);
    if (typeof kind !== 'string' || !(kind in KINDS) || !KINDS[kind as SourceKind](chainId)) {
      throw new ConfigError(`${where}.kind expected esplora (bitcoin), trongrid (tron) or etherscan (an EVM chain other than 1111111), got ${JSON.stringify(kind)} for ${chainId}`);
    }
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(String(url));
      if (!['http:', 'https:'].includes(parsedUrl.protocol)) throw new Error();
    } catch {
      throw new ConfigError(`${where}.url expected an http or https URL, got ${JSON.stringify(url)}`);
    }
    if (name !== undefined && (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name))) {
      throw new ConfigError(`${where}.name expected lower-case letters, digits, ".", "_" or "-", got ${JSON.stringify(name)}`);
    }
    return { chainId, kind: kind as SourceKind, url: parsedUrl.href.replace(/\/$/, ''), name: (name as string | undefined) ?? `${kind}-${parsedUrl.hostname}` };
  });
}

/** Reads and validates the wallet settings from `env` (default: process.env); throws ConfigError on the first bad value. */
export function loadWalletSettings(env: Env = process.env): WalletSettings {
  return {
    requestsPerSecond: integer(env, 'SVC_RATE_LIMIT_WALLET', 20, 0, 1_000_000),
    authRequestsPerSecond: integer(env, 'SVC_RATE_LIMIT_WALLET_AUTH', 5, 0, 1_000_000),
    siteRequestsPerSecond: integer(env, 'SVC_RATE_LIMIT_SITE', 50, 0, 1_000_000),
    publicUrl: httpsUrl(env, 'SVC_WALLET_PUBLIC_URL'),
    sitePublicUrl: httpsUrl(env, 'SVC_SITE_PUBLIC_URL'),
    feeBps: integer(env, 'SVC_WALLET_FEE_BPS', 25, 0, 10_000),
    feeCollectors: collectors(env),
    historySources: sources(env),
    historyTimeoutMs: integer(env, 'SVC_WALLET_HISTORY_TIMEOUT_MS', 5000, 100, 60_000),
    extensionDir: path.resolve(env.SVC_WALLET_EXTENSION_DIR || 'dist/extension'),
  };
}
