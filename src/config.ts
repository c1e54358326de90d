/**
 * The service's settings: environment variables with documented defaults, validated at start
 * (DESIGN.md "How it starts": a bad value gets a clear message and exit code 2).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.ts';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './chain/upstream.ts';
import { loadWalletSettings, type WalletSettings } from './server/wallet/settings.ts';
import { DEFAULT_FX_RATES, parseFxRates, type FxTable } from './ledger/payments/fx.ts';
import type { WsLimits } from './server/ws/limits.ts';

/** Validated settings of one svckit process. */
export type Config = {
  /** SVC_DATA_DIR: PGlite files, TLS material, Anvil state. Default `./.data`. */
  dataDir: string;
  /** SVC_HOST: interface the three origins listen on. Default `127.0.0.1`. */
  host: string;
  /** SVC_BASE_PORT, SVC_WALLET_PORT, SVC_SITE_PORT: 0 means an ephemeral port. */
  basePort: number;
  walletPort: number;
  sitePort: number;
  /** SVC_BLOCK_TIME: seconds between blocks; 0 mines a block as soon as a transaction arrives. Default 2 (spec: "Block period | 2 seconds"). */
  blockTimeSeconds: number;
  /** CHAIN_RPC_URL: an upstream node to use instead of embedded Anvil. */
  chainRpcUrl: string | undefined;
  /** SVC_CHAIN_TIMEOUT_MS: the longest one call to the chain node may take, connection to last byte (D-140). Default 10000. */
  chainTimeoutMs: number;
  /** DATABASE_URL: PostgreSQL instead of embedded PGlite. */
  databaseUrl: string | undefined;
  /** SVC_TLS_ALLOW_CLASSICAL: also accept clients that offer no hybrid post-quantum group. Default false. */
  tlsAllowClassical: boolean;
  /** SVC_VALIDATORS: size of the emulated QBFT validator set. Default 4. */
  validatorCount: number;
  /** QBFT_VALIDATOR_RPC_URLS: comma-separated validator RPC URLs; qbft_* calls are relayed there (real QBFT upstream). */
  validatorRpcUrls: string[];
  /** SVC_RATE_LIMIT: institutional requests per second per IP (spec: 10); 0 lifts it (benchmarks only). */
  institutionalRateLimit: number;
  /** SVC_RATE_LIMIT_RPC: JSON-RPC requests per second per IP on /rpc and /ws, batch entries counted (D-024). Default 100; 0 lifts it. */
  rpcRateLimit: number;
  /** SVC_RATE_LIMIT_EXPLORER: explorer requests per second per IP (D-024). Default 50; 0 lifts it. */
  explorerRateLimit: number;
  /** SVC_RATE_LIMIT_ADMIN: administrator console requests per second per IP (D-058). Default 10; 0 lifts it. */
  adminRateLimit: number;
  /** SVC_PLATFORM_BIC: the platform's bank identifier code (D-049). Default SVCKGB2LXXX. */
  platformBic: string;
  /** SVC_KEK: an external key-encryption key (base64url, 32 bytes) instead of the data directory's keyring. */
  kek: string | undefined;
  /** The wallet session API's settings (SVC_WALLET_*, SVC_RATE_LIMIT_WALLET*; see src/server/wallet/settings.ts). */
  wallet: WalletSettings;
  /** SVC_NATIVE_CCY: the native settlement unit's currency code (D-049). Default SVC. */
  nativeCcy: string;
  /** SVC_FX_RATES: the pacs.008 FX table, `CCY=rate,...` native units per unit (D-053). Default {@link DEFAULT_FX_RATES}. */
  fxRates: FxTable;
  /** SVC_WEBHOOK_CA_FILE: PEM file of extra CAs trusted for webhook receivers, besides the default store and the dev CA (D-102). */
  webhookCaFile: string | undefined;
  /** SVC_WEBHOOK_CONCURRENCY: webhook attempts in flight at most per instance. Default 32. */
  webhookConcurrency: number;
  /**
   * The /ws bounds (D-135, D-136): SVC_WS_MAX_SUBSCRIPTIONS per socket (default 100),
   * SVC_WS_MAX_SOCKETS_PER_CREDENTIAL (default 20), SVC_WS_MAX_SOCKETS_PER_IP (default 50),
   * SVC_WS_MAX_BUFFERED_BYTES unsent per socket (default 4 MiB), SVC_RATE_LIMIT_WS_UPGRADE upgrade attempts
   * per second per IP (default 10; 0 lifts it).
   */
  ws: WsLimits;
  /** SVC_WEBHOOK_ALLOW_PRIVATE: also deliver to loopback, private and link-local receivers (D-143; development and tests). Default false. */
  webhookAllowPrivate: boolean;
  /** SVC_EVIDENCE_AT_START: `svckit serve` builds a missing or stale evidence document in the background (D-153). Default true. */
  evidenceAtStart: boolean;
};

export { ConfigError } from './config-error.ts';

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} expected a port number from 0 to 65535 (0 = ephemeral), got "${raw}"`);
  }
  return Number(raw);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} expected true, false, 1 or 0, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // D-139: a URL setting may hold credentials; the message never repeats it.
    throw new ConfigError(`${name} expected a URL, got a value that does not parse as one`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} expected a ${protocols.join(' or ')} URL, got a ${parsed.protocol} URL`);
  }
  return raw;
}

/** Reads and validates the settings from `env` (default: process.env); throws ConfigError on the first bad value. */
export function loadConfig(env: Env = process.env): Config {
  const host = env.SVC_HOST || '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new ConfigError(`SVC_HOST expected a host name or IP address, got "${host}"`);
  const validatorRpcUrls = (env.QBFT_VALIDATOR_RPC_URLS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((raw, i) => url({ [`QBFT_VALIDATOR_RPC_URLS[${i}]`]: raw }, `QBFT_VALIDATOR_RPC_URLS[${i}]`, ['http:', 'https:'])!);
  return {
    dataDir: path.resolve(env.SVC_DATA_DIR || '.data'),
    host,
    basePort: port(env, 'SVC_BASE_PORT', 8443),
    walletPort: port(env, 'SVC_WALLET_PORT', 8444),
    sitePort: port(env, 'SVC_SITE_PORT', 8445),
    blockTimeSeconds: integer(env, 'SVC_BLOCK_TIME', 2, 0, 3600),
    chainRpcUrl: url(env, 'CHAIN_RPC_URL', ['http:', 'https:']),
    chainTimeoutMs: integer(env, 'SVC_CHAIN_TIMEOUT_MS', DEFAULT_UPSTREAM_TIMEOUT_MS, 100, 600_000),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    tlsAllowClassical: boolean(env, 'SVC_TLS_ALLOW_CLASSICAL'),
    validatorCount: integer(env, 'SVC_VALIDATORS', 4, 1, 64),
    validatorRpcUrls,
    institutionalRateLimit: integer(env, 'SVC_RATE_LIMIT', 10, 0, 1_000_000),
    rpcRateLimit: integer(env, 'SVC_RATE_LIMIT_RPC', 100, 0, 1_000_000),
    explorerRateLimit: integer(env, 'SVC_RATE_LIMIT_EXPLORER', 50, 0, 1_000_000),
    adminRateLimit: integer(env, 'SVC_RATE_LIMIT_ADMIN', 10, 0, 1_000_000),
    platformBic: bic(env, 'SVC_PLATFORM_BIC', 'SVCKGB2LXXX'),
    kek: kek(env),
    wallet: loadWalletSettings(env),
    nativeCcy: currency(env, 'SVC_NATIVE_CCY', 'SVC'),
    fxRates: fxRates(env),
    webhookCaFile: file(env, 'SVC_WEBHOOK_CA_FILE'),
    webhookConcurrency: integer(env, 'SVC_WEBHOOK_CONCURRENCY', 32, 1, 1024),
    ws: {
      maxSubscriptions: integer(env, 'SVC_WS_MAX_SUBSCRIPTIONS', 100, 1, 10_000),
      maxSocketsPerCredential: integer(env, 'SVC_WS_MAX_SOCKETS_PER_CREDENTIAL', 20, 1, 100_000),
      maxSocketsPerIp: integer(env, 'SVC_WS_MAX_SOCKETS_PER_IP', 50, 1, 100_000),
      maxBufferedBytes: integer(env, 'SVC_WS_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
      upgradesPerSecond: integer(env, 'SVC_RATE_LIMIT_WS_UPGRADE', 10, 0, 1_000_000),
    },
    webhookAllowPrivate: boolean(env, 'SVC_WEBHOOK_ALLOW_PRIVATE'),
    evidenceAtStart: boolean(env, 'SVC_EVIDENCE_AT_START', true),
  };
}

function currency(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  if (!/^[A-Z]{3}$/.test(raw)) throw new ConfigError(`${name} expected a three-letter upper-case currency code such as SVC, got "${raw}"`);
  return raw;
}

function fxRates(env: Env): FxTable {
  try {
    return parseFxRates(env.SVC_FX_RATES ?? DEFAULT_FX_RATES);
  } catch (error) {
    throw new ConfigError(`SVC_FX_RATES ${(error as Error).message}`);
  }
}

function file(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const resolved = path.resolve(raw);
  if (!existsSync(resolved)) throw new ConfigError(`${name} expected a readable file, got "${raw}" (not found)`);
  return resolved;
}

function bic(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(raw)) throw new ConfigError(`${name} expected a bank identifier code such as SVCKGB2LXXX, got "${raw}"`);
  return raw;
}

function kek(env: Env): string | undefined {
  const raw = env.SVC_KEK;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Za-z0-9_-]{43}$/.test(raw)) throw new ConfigError('SVC_KEK expected 32 bytes in base64url (43 characters)');
  return raw;
}
