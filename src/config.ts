/**
 * The settings: every environment variable svckit reads, in one table (D-163), and the loader of the server's
 * settings, which reads and validates them from that table at start (a bad value: a message naming the
 * variable and exit code 2). `npx tsx scripts/settings-docs.ts --write` writes the README's settings block
 * and docs/settings.md from the table; `svckit serve --help` prints it.
 */
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './node/upstream.ts';
import * as read from './config-readers.ts';
import type { Env, Reader } from './config-readers.ts';
import { DEFAULT_FX_RATES, type FxTable } from './ledger/payments/fx.ts';
import type { WsLimits } from './server/chain/ws/limits.ts';

export { ConfigError } from './config-error.ts';

/** A program that reads a setting: the server (`svckit serve`, and the stacks conformance, evidence and tests start) or a client tool. */
export type SettingReader = 'svckit serve' | 'svckit admin' | 'svckit conformance' | 'scripts/quickstart-transfer.ts';

/** One row of the settings table: how the variable is read, and what the documentation says of it. */
export type Setting<T> = Reader<T> & {
  /** What the setting does, one sentence. */
  description: string;
  /** True when the value may hold a credential: keep it out of logs, shell history and version control. */
  secret: boolean;
  /** The specification section or decision the setting carries out. */
  implements: string;
  /** The programs that read it. */
  readBy: readonly SettingReader[];
};

const SERVE = ['svckit serve'] as const;
const SERVE_AND_CLIENTS = ['svckit serve', 'svckit admin', 'scripts/quickstart-transfer.ts'] as const;

/** Every environment variable svckit reads, in the order the documentation lists them. */
export const SETTINGS = {
  SVC_DATA_DIR: {
    ...read.directory('.data'),
    description: 'PGlite files, TLS material, Anvil state, key-encryption keyring; created mode 0700',
    secret: false,
    implements: 'D-149, D-163',
    readBy: SERVE_AND_CLIENTS,
  },
  SVC_HOST: {
    ...read.host('127.0.0.1'),
    description: 'interface the three origins listen on',
    secret: false,
    implements: 'D-163',
    readBy: SERVE_AND_CLIENTS,
  },
  SVC_BASE_PORT: {
    ...read.port(8443),
    description: 'base origin ({base_url}): /api, /rpc, /ws, /wallet/api/v1, /admin/v1, /docs',
    secret: false,
    implements: 'D-163',
    readBy: SERVE_AND_CLIENTS,
  },
  SVC_WALLET_PORT: {
    ...read.port(8444),
    description: 'wallet session API origin ({wallet_api_url})',
    secret: false,
    implements: 'D-163',
    readBy: SERVE,
  },
  SVC_SITE_PORT: {
    ...read.port(8445),
    description: 'site origin ({site_url}): the evidence document and the extension download',
    secret: false,
    implements: 'D-163',
    readBy: SERVE,
  },
  SVC_WALLET_PUBLIC_URL: {
    ...read.httpsOrigin(),
    description:
      '{wallet_api_url} as clients reach it (sign-in message domain, session token iss and aud); unset: the listening origin',
    secret: false,
    implements: 'D-043',
    readBy: SERVE,
  },
  SVC_SITE_PUBLIC_URL: {
    ...read.httpsOrigin(),
    description: '{site_url} as clients reach it, for the extension download; unset: the listening origin',
    secret: false,
    implements: 'D-086',
    readBy: SERVE,
  },
  SVC_TLS_ALLOW_CLASSICAL: {
    ...read.flag(false),
    description:
      'also accept TLS clients without X25519MLKEM768 (classical X25519 and P-256); warned on stderr at every start',
    secret: false,
    implements: 'D-093, D-157',
    readBy: SERVE,
  },
  SVC_LOG_LEVEL: {
    ...read.text('info'),
    description: 'request log level: fatal, error, warn, info, debug, trace or silent; logs go to stderr',
    secret: false,
    implements: 'D-163',
    readBy: SERVE,
  },
  DATABASE_URL: {
    ...read.url(['postgres:', 'postgresql:']),
    description:
      'PostgreSQL instead of the embedded PGlite; the conformance harness makes a fresh database there for its reference stack',
    secret: true,
    implements: 'D-163',
    readBy: ['svckit serve', 'svckit conformance'],
  },
  SVC_KEK: {
    ...read.key32(),
    description:
      "an external key-encryption key instead of the data directory's keyring (keks.json); rotated outside svckit",
    secret: true,
    implements: 'D-061, D-100',
    readBy: SERVE,
  },
  SVC_BLOCK_TIME: {
    ...read.integer(2, 0, 3600),
    description: 'seconds between blocks; 0 mines a block as soon as a transaction arrives',
    secret: false,
    implements: 'spec "Limits": Block period 2 seconds',
    readBy: SERVE,
  },
  SVC_VALIDATORS: {
    ...read.integer(4, 1, 64),
    description: 'size of the emulated QBFT validator set',
    secret: false,
    implements: 'D-037, D-163',
    readBy: SERVE,
  },
  CHAIN_RPC_URL: {
    ...read.url(['http:', 'https:']),
    description:
      'an upstream chain node instead of the embedded Anvil; never shown in errors, logs name its scheme, host and port only',
    secret: true,
    implements: 'D-079, D-139',
    readBy: SERVE,
  },
  SVC_CHAIN_TIMEOUT_MS: {
    ...read.integer(DEFAULT_UPSTREAM_TIMEOUT_MS, 100, 600_000),
    description: 'the longest one call to the chain node may take, connection to last byte, in milliseconds',
    secret: false,
    implements: 'D-140',
    readBy: SERVE,
  },
  QBFT_VALIDATOR_RPC_URLS: {
    ...read.urlList(['http:', 'https:']),
    description: 'validator RPC URLs that qbft_* calls are relayed to (a real QBFT upstream)',
    secret: true,
    implements: 'D-075, D-080',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT: {
    ...read.integer(10, 0, 1_000_000),
    description: 'institutional API requests per second per client IP; 0 lifts it (benchmarks only)',
    secret: false,
    implements: 'spec "Limits": Request rate 10 requests per second per IP',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_RPC: {
    ...read.integer(100, 0, 1_000_000),
    description: 'JSON-RPC requests per second per client IP on /rpc and /ws, each batch entry counted; 0 lifts it',
    secret: false,
    implements: 'D-024',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_EXPLORER: {
    ...read.integer(50, 0, 1_000_000),
    description: 'explorer and /docs requests per second per client IP; 0 lifts it',
    secret: false,
    implements: 'D-024, D-155',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_ADMIN: {
    ...read.integer(10, 0, 1_000_000),
    description: 'administrator API requests per second per client IP; 0 lifts it',
    secret: false,
    implements: 'D-058',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_WALLET: {
    ...read.integer(20, 0, 1_000_000),
    description: 'wallet session API requests per second per client IP, /auth/* apart; 0 lifts it',
    secret: false,
    implements: 'D-024, D-090',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_WALLET_AUTH: {
    ...read.integer(5, 0, 1_000_000),
    description: 'requests per second per client IP on /auth/challenge and /auth/verify; 0 lifts it',
    secret: false,
    implements: 'D-024, D-090',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_SITE: {
    ...read.integer(50, 0, 1_000_000),
    description: 'site origin requests per second per client IP; 0 lifts it',
    secret: false,
    implements: 'D-146',
    readBy: SERVE,
  },
  SVC_RATE_LIMIT_WS_UPGRADE: {
    ...read.integer(10, 0, 1_000_000),
    description: '/ws upgrade attempts per second per client IP, answered or not; 0 lifts it',
    secret: false,
    implements: 'D-135',
    readBy: SERVE,
  },
  SVC_WS_MAX_SUBSCRIPTIONS: {
    ...read.integer(100, 1, 10_000),
    description: 'subscriptions one /ws connection may hold',
    secret: false,
    implements: 'D-135',
    readBy: SERVE,
  },
  SVC_WS_MAX_SOCKETS_PER_CREDENTIAL: {
    ...read.integer(20, 1, 100_000),
    description: 'open /ws connections per credential',
    secret: false,
    implements: 'D-135',
    readBy: SERVE,
  },
  SVC_WS_MAX_SOCKETS_PER_IP: {
    ...read.integer(50, 1, 100_000),
    description: 'open /ws connections per client IP',
    secret: false,
    implements: 'D-135',
    readBy: SERVE,
  },
  SVC_WS_MAX_BUFFERED_BYTES: {
    ...read.integer(4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    description: 'unsent bytes before a /ws client that stops reading is closed with 1008',
    secret: false,
    implements: 'D-136',
    readBy: SERVE,
  },
  SVC_PLATFORM_BIC: {
    ...read.bic('SVCKGB2LXXX'),
    description: "the platform's bank identifier code",
    secret: false,
    implements: 'D-049',
    readBy: SERVE,
  },
  SVC_NATIVE_CCY: {
    ...read.currency('SVC'),
    description: 'currency code of the native settlement unit',
    secret: false,
    implements: 'D-049',
    readBy: SERVE,
  },
  SVC_FX_RATES: {
    ...read.fxRates(DEFAULT_FX_RATES),
    description:
      'the FX table of pacs.008 payments, native units one unit of each currency buys; empty: no currency but the native one',
    secret: false,
    implements: 'D-053, D-103',
    readBy: SERVE,
  },
  SVC_WEBHOOK_CA_FILE: {
    ...read.file(),
    description:
      'PEM file of extra CAs trusted for webhook receivers, besides the default store and the development CA',
    secret: false,
    implements: 'D-102',
    readBy: SERVE,
  },
  SVC_WEBHOOK_CONCURRENCY: {
    ...read.integer(32, 1, 1024),
    description: 'webhook delivery attempts in flight at most per instance',
    secret: false,
    implements: 'D-163',
    readBy: SERVE,
  },
  SVC_WEBHOOK_ALLOW_PRIVATE: {
    ...read.flag(false),
    description: 'also deliver webhooks to loopback, private and link-local addresses (development and tests only)',
    secret: false,
    implements: 'D-143',
    readBy: SERVE,
  },
  SVC_WALLET_FEE_BPS: {
    ...read.integer(25, 0, 10_000),
    description: 'the wallet platform fee in basis points',
    secret: false,
    implements: 'D-014, D-088',
    readBy: SERVE,
  },
  SVC_WALLET_FEE_COLLECTORS: {
    ...read.feeCollectors(),
    description: 'fee collectors of chains other than the native one, one per chain; unset: none',
    secret: false,
    implements: 'D-014, D-088',
    readBy: SERVE,
  },
  SVC_WALLET_HISTORY_SOURCES: {
    ...read.historySources(),
    description:
      'history sources of chains other than the native one: kind esplora (bitcoin), trongrid (tron) or etherscan (EVM); unset: the native chain only',
    secret: true,
    implements: 'D-087',
    readBy: SERVE,
  },
  SVC_WALLET_HISTORY_TIMEOUT_MS: {
    ...read.integer(5000, 100, 60_000),
    description: 'time-out of one history source, in milliseconds',
    secret: false,
    implements: 'D-087',
    readBy: SERVE,
  },
  SVC_WALLET_EXTENSION_DIR: {
    ...read.directory('dist/extension'),
    description: 'the built browser extension (manifest.json inside) the site origin offers for download',
    secret: false,
    implements: 'D-086',
    readBy: SERVE,
  },
  SVC_EVIDENCE_AT_START: {
    ...read.flag(true),
    description: 'build a missing or stale evidence document in the background once the server is ready',
    secret: false,
    implements: 'D-153',
    readBy: SERVE,
  },
  SVC_ADMIN_TOKEN: {
    ...read.text(),
    description: 'the administrator token the client tools send when --token or --admin-token is not given',
    secret: true,
    implements: 'D-158',
    readBy: ['svckit admin', 'svckit conformance'],
  },
  SVC_API_KEY: {
    ...read.text(),
    description: "the institutional API key (svc_…) the quick start's transfer script sends",
    secret: true,
    implements: 'spec "Authentication" A',
    readBy: ['scripts/quickstart-transfer.ts'],
  },
  SVC_BASE_URL: {
    ...read.text(),
    description: "the base origin the quick start's transfer script calls; unset: https://<SVC_HOST>:<SVC_BASE_PORT>",
    secret: false,
    implements: 'D-158',
    readBy: ['scripts/quickstart-transfer.ts'],
  },
} satisfies Record<string, Setting<unknown>>;

/** The name of a variable of the settings table. */
export type SettingName = keyof typeof SETTINGS;

/** The value a setting reads to. */
export type SettingValue<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['read']>;

/** How a history source is queried (D-087). */
export type SourceKind = 'esplora' | 'etherscan' | 'trongrid';

/** One configured history source of a chain other than the native one (D-087). */
export type HistorySourceConfig = { chainId: string; kind: SourceKind; url: string; name: string };

/** The fee collector of one chain (D-014). */
export type FeeCollector = { chainId: string; address: string };

/** The wallet session API's settings (surface E). */
export type WalletSettings = {
  /** SVC_RATE_LIMIT_WALLET. */
  requestsPerSecond: number;
  /** SVC_RATE_LIMIT_SITE. */
  siteRequestsPerSecond: number;
  /** SVC_RATE_LIMIT_WALLET_AUTH. */
  authRequestsPerSecond: number;
  /** SVC_WALLET_PUBLIC_URL: {wallet_api_url} as clients reach it; undefined: the listening origin. */
  publicUrl: string | undefined;
  /** SVC_SITE_PUBLIC_URL: {site_url} for the extension download; undefined: the site origin's listening URL. */
  sitePublicUrl: string | undefined;
  /** SVC_WALLET_FEE_BPS. */
  feeBps: number;
  /** SVC_WALLET_FEE_COLLECTORS. */
  feeCollectors: FeeCollector[];
  /** SVC_WALLET_HISTORY_SOURCES. */
  historySources: HistorySourceConfig[];
  /** SVC_WALLET_HISTORY_TIMEOUT_MS. */
  historyTimeoutMs: number;
  /** SVC_WALLET_EXTENSION_DIR, resolved. */
  extensionDir: string;
};

/** Validated settings of one svckit process; each field names its variable of {@link SETTINGS}. */
export type Config = {
  /** SVC_DATA_DIR, resolved. */
  dataDir: string;
  /** SVC_HOST. */
  host: string;
  /** SVC_BASE_PORT, SVC_WALLET_PORT, SVC_SITE_PORT: 0 means an ephemeral port. */
  basePort: number;
  walletPort: number;
  sitePort: number;
  /** SVC_BLOCK_TIME: seconds between blocks; 0 mines a block as soon as a transaction arrives. */
  blockTimeSeconds: number;
  /** CHAIN_RPC_URL: an upstream node to use instead of embedded Anvil. */
  chainRpcUrl: string | undefined;
  /** SVC_CHAIN_TIMEOUT_MS (D-140). */
  chainTimeoutMs: number;
  /** DATABASE_URL: PostgreSQL instead of embedded PGlite. */
  databaseUrl: string | undefined;
  /** SVC_TLS_ALLOW_CLASSICAL (D-157). */
  tlsAllowClassical: boolean;
  /** SVC_VALIDATORS. */
  validatorCount: number;
  /** QBFT_VALIDATOR_RPC_URLS: qbft_* calls are relayed there (real QBFT upstream). */
  validatorRpcUrls: string[];
  /** SVC_RATE_LIMIT (spec: 10); 0 lifts it. */
  institutionalRateLimit: number;
  /** SVC_RATE_LIMIT_RPC (D-024). */
  rpcRateLimit: number;
  /** SVC_RATE_LIMIT_EXPLORER (D-024). */
  explorerRateLimit: number;
  /** SVC_RATE_LIMIT_ADMIN (D-058). */
  adminRateLimit: number;
  /** SVC_PLATFORM_BIC (D-049). */
  platformBic: string;
  /** SVC_KEK: an external key-encryption key (base64url, 32 bytes) instead of the data directory's keyring. */
  kek: string | undefined;
  /** The wallet session API's settings (SVC_WALLET_*, SVC_SITE_PUBLIC_URL, SVC_RATE_LIMIT_WALLET*, SVC_RATE_LIMIT_SITE). */
  wallet: WalletSettings;
  /** SVC_NATIVE_CCY (D-049). */
  nativeCcy: string;
  /** SVC_FX_RATES (D-053). */
  fxRates: FxTable;
  /** SVC_WEBHOOK_CA_FILE (D-102), resolved. */
  webhookCaFile: string | undefined;
  /** SVC_WEBHOOK_CONCURRENCY. */
  webhookConcurrency: number;
  /** The /ws bounds (D-135, D-136): SVC_WS_MAX_*, SVC_RATE_LIMIT_WS_UPGRADE. */
  ws: WsLimits;
  /** SVC_WEBHOOK_ALLOW_PRIVATE (D-143). */
  webhookAllowPrivate: boolean;
  /** SVC_EVIDENCE_AT_START (D-153). */
  evidenceAtStart: boolean;
  /** SVC_LOG_LEVEL: the request log level. */
  logLevel: string;
};

/** Reads and validates one setting of the table from `env` (default: process.env); throws ConfigError when it is bad. */
export function readSetting<N extends SettingName>(name: N, env: Env = process.env): SettingValue<N> {
  return SETTINGS[name].read(env, name) as SettingValue<N>;
}

/**
 * The server's settings from `env` (default: process.env), read and validated through {@link SETTINGS};
 * throws ConfigError on the first bad value, in the order below.
 */
export function loadConfig(env: Env = process.env): Config {
  const get = <N extends SettingName>(name: N) => readSetting(name, env);
  const host = get('SVC_HOST');
  const validatorRpcUrls = get('QBFT_VALIDATOR_RPC_URLS');
  return {
    dataDir: get('SVC_DATA_DIR'),
    host,
    basePort: get('SVC_BASE_PORT'),
    walletPort: get('SVC_WALLET_PORT'),
    sitePort: get('SVC_SITE_PORT'),
    blockTimeSeconds: get('SVC_BLOCK_TIME'),
    chainRpcUrl: get('CHAIN_RPC_URL'),
    chainTimeoutMs: get('SVC_CHAIN_TIMEOUT_MS'),
    databaseUrl: get('DATABASE_URL'),
    tlsAllowClassical: get('SVC_TLS_ALLOW_CLASSICAL'),
    validatorCount: get('SVC_VALIDATORS'),
    validatorRpcUrls,
    institutionalRateLimit: get('SVC_RATE_LIMIT'),
    rpcRateLimit: get('SVC_RATE_LIMIT_RPC'),
    explorerRateLimit: get('SVC_RATE_LIMIT_EXPLORER'),
    adminRateLimit: get('SVC_RATE_LIMIT_ADMIN'),
    platformBic: get('SVC_PLATFORM_BIC'),
    kek: get('SVC_KEK'),
    wallet: {
      requestsPerSecond: get('SVC_RATE_LIMIT_WALLET'),
      authRequestsPerSecond: get('SVC_RATE_LIMIT_WALLET_AUTH'),
      siteRequestsPerSecond: get('SVC_RATE_LIMIT_SITE'),
      publicUrl: get('SVC_WALLET_PUBLIC_URL'),
      sitePublicUrl: get('SVC_SITE_PUBLIC_URL'),
      feeBps: get('SVC_WALLET_FEE_BPS'),
      feeCollectors: get('SVC_WALLET_FEE_COLLECTORS'),
      historySources: get('SVC_WALLET_HISTORY_SOURCES'),
      historyTimeoutMs: get('SVC_WALLET_HISTORY_TIMEOUT_MS'),
      extensionDir: get('SVC_WALLET_EXTENSION_DIR'),
    },
    nativeCcy: get('SVC_NATIVE_CCY'),
    fxRates: get('SVC_FX_RATES'),
    webhookCaFile: get('SVC_WEBHOOK_CA_FILE'),
    webhookConcurrency: get('SVC_WEBHOOK_CONCURRENCY'),
    ws: {
      maxSubscriptions: get('SVC_WS_MAX_SUBSCRIPTIONS'),
      maxSocketsPerCredential: get('SVC_WS_MAX_SOCKETS_PER_CREDENTIAL'),
      maxSocketsPerIp: get('SVC_WS_MAX_SOCKETS_PER_IP'),
      maxBufferedBytes: get('SVC_WS_MAX_BUFFERED_BYTES'),
      upgradesPerSecond: get('SVC_RATE_LIMIT_WS_UPGRADE'),
    },
    webhookAllowPrivate: get('SVC_WEBHOOK_ALLOW_PRIVATE'),
    evidenceAtStart: get('SVC_EVIDENCE_AT_START'),
    logLevel: get('SVC_LOG_LEVEL'),
  };
}
