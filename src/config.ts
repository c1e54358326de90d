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
import type { ConnectionSettings } from './server/http/connections.ts';
import { DEFAULT_HSTS_MAX_AGE } from './server/http/security-headers.ts';
import { DEFAULT_SIMULATION, type SimulationLimits } from './server/chain/simulation-limits.ts';

export { ConfigError } from './config-error.ts';

/** A program that reads a setting: the server (`svckit serve`, and the stacks conformance, evidence and tests start) or a client tool. */
export type SettingReader =
  | 'svckit serve'
  | 'svckit admin'
  | 'svckit conformance'
  | 'svckit replay'
  | 'scripts/quickstart-transfer.ts';

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

/** A row of the table: not secret and read by the server alone unless `more` says otherwise. */
function setting<T>(
  reader: Reader<T>,
  description: string,
  implementsRef: string,
  more: { secret?: true; readBy?: readonly SettingReader[] } = {},
): Setting<T> {
  return {
    ...reader,
    description,
    secret: more.secret ?? false,
    implements: implementsRef,
    readBy: more.readBy ?? SERVE,
  };
}

/** Every environment variable svckit reads, in the order the documentation lists them. */
export const SETTINGS = {
  SVC_DATA_DIR: setting(
    read.directory('.data'),
    'PGlite files, TLS material, Anvil state, key-encryption keyring; created mode 0700',
    'D-149, D-163',
    { readBy: SERVE_AND_CLIENTS },
  ),
  SVC_HOST: setting(read.host('127.0.0.1'), 'interface the three origins listen on', 'D-163', {
    readBy: SERVE_AND_CLIENTS,
  }),
  SVC_BASE_PORT: setting(
    read.port(8443),
    'base origin ({base_url}): /api, /rpc, /ws, /wallet/api/v1, /admin/v1, /docs',
    'D-163',
    { readBy: SERVE_AND_CLIENTS },
  ),
  SVC_WALLET_PORT: setting(read.port(8444), 'wallet session API origin ({wallet_api_url})', 'D-163'),
  SVC_SITE_PORT: setting(
    read.port(8445),
    'site origin ({site_url}): the evidence document and the extension download',
    'D-163',
  ),
  SVC_WALLET_PUBLIC_URL: setting(
    read.httpsOrigin(),
    '{wallet_api_url} as clients reach it (sign-in message domain, session token iss and aud); unset: the listening origin',
    'D-043',
  ),
  SVC_SITE_PUBLIC_URL: setting(
    read.httpsOrigin(),
    '{site_url} as clients reach it, for the extension download; unset: the listening origin',
    'D-086',
  ),
  SVC_TLS_ALLOW_CLASSICAL: setting(
    read.flag(false),
    'also accept TLS clients without X25519MLKEM768 (classical X25519 and P-256); warned on stderr at every start',
    'D-093, D-157',
  ),
  SVC_RPC_CLASSICAL_PORT: setting(
    read.optionalPort(),
    'a separate listener for /rpc and /ws alone that also accepts TLS clients without X25519MLKEM768 (classical X25519 and P-256), under the same limits as the base origin; unset: no such listener; warned on stderr at every start',
    'D-259',
  ),
  SVC_REQUEST_TIMEOUT_MS: setting(
    read.integer(30_000, 1_000, 300_000),
    'the longest a client may take for the TLS handshake, and for one request from its first byte to the last of its body, in milliseconds; then 408 and the connection is closed (/ws once upgraded is not bound by it)',
    'D-204',
  ),
  SVC_MAX_CONNECTIONS: setting(
    read.integer(1_024, 1, 1_000_000),
    'open connections per origin, /ws included; a connection over it is closed as soon as it is accepted',
    'D-205',
  ),
  SVC_MAX_CONNECTIONS_PER_IP: setting(
    read.integer(128, 1, 1_000_000),
    'open connections per client IP per origin, /ws included; a connection over it is reset as soon as it is accepted',
    'D-205',
  ),
  SVC_HSTS_MAX_AGE: setting(
    read.integer(DEFAULT_HSTS_MAX_AGE, 0, 63_072_000),
    'max-age, in seconds, of the Strict-Transport-Security header every answer of every origin carries; 0 tells browsers to forget it',
    'D-207',
  ),
  SVC_LOG_LEVEL: setting(
    read.text('info'),
    'request log level: fatal, error, warn, info, debug, trace or silent; logs go to stderr',
    'D-163',
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting(
    read.url(['http:', 'https:']),
    'OpenTelemetry traces: the OTLP/HTTP collector base URL (spans go to <url>/v1/traces as JSON); unset: traces off, at no cost',
    'D-265',
  ),
  OTEL_SERVICE_NAME: setting(read.text('svckit'), 'the service.name of the traces', 'D-265'),
  DATABASE_URL: setting(
    read.url(['postgres:', 'postgresql:']),
    'PostgreSQL instead of the embedded PGlite; the conformance harness makes a fresh database there for its reference stack',
    'D-163',
    { secret: true, readBy: ['svckit serve', 'svckit conformance'] },
  ),
  REDIS_URL: setting(
    read.url(['redis:', 'rediss:']),
    'Redis shared by several instances: per-IP rate limits, SVC-MLDSA replay refusal, credential changes; unset: each process keeps its own; unreachable at start: the start fails',
    'D-168, D-169, D-170',
    { secret: true },
  ),
  SVC_KEK: setting(
    read.key32(),
    "an external key-encryption key instead of the data directory's keyring (keks.json); rotated outside svckit",
    'D-061, D-100',
    { secret: true },
  ),
  SVC_BLOCK_TIME: setting(
    read.integer(2, 0, 3600),
    'seconds between blocks; 0 mines a block as soon as a transaction arrives',
    'spec "Limits": Block period 2 seconds',
  ),
  SVC_VALIDATORS: setting(read.integer(4, 1, 64), 'size of the emulated QBFT validator set', 'D-037, D-163'),
  CHAIN_RPC_URL: setting(
    read.url(['http:', 'https:']),
    'an upstream chain node instead of the embedded Anvil; never shown in errors, logs name its scheme, host and port only',
    'D-079, D-139',
    { secret: true },
  ),
  SVC_CHAIN_TIMEOUT_MS: setting(
    read.integer(DEFAULT_UPSTREAM_TIMEOUT_MS, 100, 600_000),
    'the longest one call to the chain node may take, connection to last byte, in milliseconds',
    'D-140',
  ),
  SVC_SHARED_CHAIN: setting(
    read.flag(false),
    'CHAIN_RPC_URL is an Anvil started with --no-mining that several instances on one DATABASE_URL share: the holder of the leader lease seals its blocks, the others follow',
    'D-183',
  ),
  SVC_LEADER_LEASE_MS: setting(
    read.integer(3_000, 300, 600_000),
    'length of the block producer leader lease in milliseconds, renewed every third of it; a dead leader is replaced within about 4/3 of it',
    'D-183',
  ),
  SVC_SHUTDOWN_TIMEOUT_MS: setting(
    read.integer(12_000, 0, 600_000),
    'on SIGTERM or SIGINT, how long the requests in flight, the webhook attempts in flight and the transfers being broadcast may take to finish, in milliseconds; past it the rest is cut and the exit line says so',
    'D-264',
  ),
  QBFT_VALIDATOR_RPC_URLS: setting(
    read.urlList(['http:', 'https:']),
    'validator RPC URLs that qbft_* calls are relayed to (a real QBFT upstream)',
    'D-075, D-080',
    { secret: true },
  ),
  SVC_RATE_LIMIT: setting(
    read.perSecond(10),
    'institutional API requests per second per client IP; 0 lifts it (benchmarks only)',
    'spec "Limits": Request rate 10 requests per second per IP',
  ),
  SVC_RATE_LIMIT_RPC: setting(
    read.perSecond(100),
    'JSON-RPC requests per second per client IP on /rpc and /ws, each batch entry counted; 0 lifts it',
    'D-024',
  ),
  SVC_RPC_GAS_CAP: setting(
    read.integer(DEFAULT_SIMULATION.gasCap, 21_000, 1_000_000_000),
    'the most gas one eth_call or eth_estimateGas may use on /rpc and /ws, and its gas when the request names none',
    'D-199',
  ),
  SVC_RPC_SIMULATE_PER_IP: setting(
    read.integer(DEFAULT_SIMULATION.perClient, 1, 1_000),
    'eth_call and eth_estimateGas in flight per client IP; one more is refused with -32005',
    'D-200',
  ),
  SVC_RPC_SIMULATE_TOTAL: setting(
    read.integer(DEFAULT_SIMULATION.total, 1, 1_000),
    'eth_call and eth_estimateGas in flight on the gateway; one more waits up to 1 s, then is refused with -32005',
    'D-200',
  ),
  SVC_RPC_SIMULATE_WEIGHT: setting(
    read.integer(DEFAULT_SIMULATION.weight, 1, 1_000_000),
    'requests of SVC_RATE_LIMIT_RPC one eth_call or eth_estimateGas counts as',
    'D-201',
  ),
  SVC_RATE_LIMIT_EXPLORER: setting(
    read.perSecond(50),
    'explorer and /docs requests per second per client IP; 0 lifts it',
    'D-024, D-155',
  ),
  SVC_RATE_LIMIT_ADMIN: setting(
    read.perSecond(10),
    'administrator API requests per second per client IP; 0 lifts it',
    'D-058',
  ),
  SVC_RATE_LIMIT_WALLET: setting(
    read.perSecond(20),
    'wallet session API requests per second per client IP, /auth/* apart; 0 lifts it',
    'D-024, D-090',
  ),
  SVC_RATE_LIMIT_WALLET_AUTH: setting(
    read.perSecond(5),
    'requests per second per client IP on /auth/challenge and /auth/verify; 0 lifts it',
    'D-024, D-090',
  ),
  SVC_RATE_LIMIT_SITE: setting(
    read.perSecond(50),
    'site origin requests per second per client IP; 0 lifts it',
    'D-146',
  ),
  SVC_RATE_LIMIT_WS_UPGRADE: setting(
    read.perSecond(10),
    '/ws upgrade attempts per second per client IP, answered or not; 0 lifts it',
    'D-135',
  ),
  SVC_WS_MAX_SUBSCRIPTIONS: setting(read.integer(100, 1, 10_000), 'subscriptions one /ws connection may hold', 'D-135'),
  SVC_WS_MAX_SOCKETS_PER_CREDENTIAL: setting(
    read.integer(20, 1, 100_000),
    'open /ws connections per credential',
    'D-135',
  ),
  SVC_WS_MAX_SOCKETS_PER_IP: setting(read.integer(50, 1, 100_000), 'open /ws connections per client IP', 'D-135'),
  SVC_WS_MAX_BUFFERED_BYTES: setting(
    read.integer(4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    'unsent bytes before a /ws client that stops reading is closed with 1008',
    'D-136',
  ),
  SVC_PLATFORM_BIC: setting(read.bic('SVCKGB2LXXX'), "the platform's bank identifier code", 'D-049'),
  SVC_NATIVE_CCY: setting(read.currency('SVC'), 'currency code of the native settlement unit', 'D-049'),
  SVC_FX_RATES: setting(
    read.fxRates(DEFAULT_FX_RATES),
    'the FX table of pacs.008 payments, native units one unit of each currency buys; empty: no currency but the native one',
    'D-053, D-103',
  ),
  SVC_WEBHOOK_CA_FILE: setting(
    read.file(),
    'PEM file of extra CAs trusted for webhook receivers, besides the default store and the development CA',
    'D-102',
  ),
  SVC_WEBHOOK_CONCURRENCY: setting(
    read.integer(32, 1, 1024),
    'webhook delivery attempts in flight at most per instance',
    'D-163',
  ),
  SVC_WEBHOOK_ALLOW_PRIVATE: setting(
    read.flag(false),
    'also deliver webhooks to loopback, private and link-local addresses (development and tests only)',
    'D-143',
  ),
  SVC_WALLET_FEE_BPS: setting(read.integer(25, 0, 10_000), 'the wallet platform fee in basis points', 'D-014, D-088'),
  SVC_WALLET_FEE_COLLECTORS: setting(
    read.feeCollectors(),
    'fee collectors of chains other than the native one, one per chain; unset: none',
    'D-014, D-088',
  ),
  SVC_WALLET_HISTORY_SOURCES: setting(
    read.historySources(),
    'history sources of chains other than the native one: kind esplora (bitcoin), trongrid (tron) or etherscan (EVM); unset: the native chain only',
    'D-087',
    { secret: true },
  ),
  SVC_WALLET_HISTORY_TIMEOUT_MS: setting(
    read.integer(5000, 100, 60_000),
    'time-out of one history source, in milliseconds',
    'D-087',
  ),
  SVC_WALLET_SYNC_BYTES_PER_IDENTITY: setting(
    read.integer(8 * 1024 * 1024, 4096, 1024 ** 3),
    'sync bytes one wallet identity may hold (envelopes, device keys and labels); 8 MiB by default',
    'D-217',
  ),
  SVC_WALLET_SYNC_BYTES_PER_IP: setting(
    read.integer(16 * 1024 * 1024, 4096, 1024 ** 4),
    'sync bytes one client IP (an IPv6 /64) may write in 24 hours, overwrites counted; 16 MiB by default',
    'D-218',
  ),
  SVC_WALLET_SYNC_BYTES_TOTAL: setting(
    read.integer(1024 ** 3, 4096, 1024 ** 5),
    'sync bytes the database may hold for all identities together; 1 GiB by default',
    'D-217',
  ),
  SVC_WALLET_IDENTITIES_PER_IP: setting(
    read.integer(100, 1, 1_000_000),
    'new wallet identities one client IP (an IPv6 /64) may register per hour',
    'D-219',
  ),
  SVC_WALLET_EXTENSION_DIR: setting(
    read.directory('dist/extension'),
    'the built browser extension (manifest.json inside) the site origin offers for download',
    'D-086',
  ),
  SVC_WALLET_KEY_GRACE_S: setting(
    read.integer(3600, 0, 2_592_000),
    'seconds a wallet service key a rotation retires (session tokens, extension releases) keeps verifying and stays in the JWKS',
    'D-215',
  ),
  SVC_SMTP_URL: setting(
    read.smtpUrl(),
    'SMTP server that sends managed-account email codes (smtp:// with STARTTLS, required off loopback; smtps:// with TLS; credentials in the URL); unset: codes are written to the server log, announced at start (development only)',
    'D-210, D-213',
    { secret: true },
  ),
  SVC_SMTP_FROM: setting(read.mailbox('svckit <no-reply@localhost>'), 'sender of managed-account emails', 'D-213'),
  SVC_MANAGED_CODES_PER_EMAIL: setting(
    read.integer(5, 1, 1000),
    'managed-account email codes sent to one email per hour; past it the answer is the same and nothing is sent',
    'D-210',
  ),
  SVC_MANAGED_CODES_PER_IP: setting(
    read.integer(20, 0, 1_000_000),
    'managed-account email codes one client IP may ask for per hour, answered 429 past it; 0 lifts it',
    'D-210',
  ),
  SVC_EVIDENCE_AT_START: setting(
    read.flag(true),
    'build a missing or stale evidence document in the background once the server is ready',
    'D-153',
  ),
  SVC_WEBHOOK_SECRET: setting(
    read.text(),
    'the webhook signing secret svckit conformance signs and verifies deliveries with when --webhook-secret and --webhook-secret-file are not given',
    'D-222',
    { secret: true, readBy: ['svckit conformance'] },
  ),
  SVC_WEBHOOK_PREVIOUS_SECRET: setting(
    read.text(),
    'the previous webhook signing secret (rotation) when --webhook-previous-secret and its file are not given',
    'D-222',
    { secret: true, readBy: ['svckit conformance'] },
  ),
  SVC_RPC_SENDER_KEY: setting(
    read.text(),
    'the funded sender key of a bare-node chain target when --rpc-sender-key and its file are not given',
    'D-222',
    { secret: true, readBy: ['svckit conformance'] },
  ),
  SVC_REPLAY_AUTHORIZATION: setting(
    read.text(),
    'the Authorization header value svckit replay sends when --authorization and its file are not given',
    'D-222',
    { secret: true, readBy: ['svckit replay'] },
  ),
  SVC_ADMIN_TOKEN: setting(
    read.text(),
    'the administrator token the client tools send when --token or --admin-token is not given',
    'D-158',
    { secret: true, readBy: ['svckit admin', 'svckit conformance'] },
  ),
  SVC_API_KEY: setting(
    read.text(),
    "the institutional API key (svc_…) the quick start's transfer script sends",
    'spec "Authentication" A',
    { secret: true, readBy: ['scripts/quickstart-transfer.ts'] },
  ),
  SVC_BASE_URL: setting(
    read.text(),
    "the base origin the quick start's transfer script calls; unset: https://<SVC_HOST>:<SVC_BASE_PORT>",
    'D-158',
    { readBy: ['scripts/quickstart-transfer.ts'] },
  ),
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

/** Sync storage budgets in bytes (D-217, D-218). */
export type SyncBudgets = { perIdentity: number; perIpPerDay: number; total: number };

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
  /** SVC_WALLET_SYNC_BYTES_PER_IDENTITY, SVC_WALLET_SYNC_BYTES_PER_IP, SVC_WALLET_SYNC_BYTES_TOTAL (D-217, D-218). */
  syncBudgets: SyncBudgets;
  /** SVC_WALLET_IDENTITIES_PER_IP (D-219). */
  identitiesPerIpPerHour: number;
  /** SVC_WALLET_EXTENSION_DIR, resolved. */
  extensionDir: string;
  /** SVC_WALLET_KEY_GRACE_S: how long a retired service key keeps verifying (D-215). */
  keyGraceSeconds: number;
  /** SVC_SMTP_URL, SVC_SMTP_FROM, SVC_MANAGED_CODES_PER_* (D-210, D-213). */
  managed: ManagedSettings;
};

/** How the managed tier proves an email (D-210, D-213). */
export type ManagedSettings = {
  /** SVC_SMTP_URL; undefined: codes go to the server log (development). */
  smtpUrl: string | undefined;
  /** SVC_SMTP_FROM. */
  mailFrom: string;
  /** SVC_MANAGED_CODES_PER_EMAIL, per hour. */
  codesPerEmail: number;
  /** SVC_MANAGED_CODES_PER_IP, per hour; 0 lifts it. */
  codesPerIp: number;
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
  /** SVC_SHARED_CHAIN (D-183): CHAIN_RPC_URL is a --no-mining node whose blocks the lease holder seals. */
  sharedChain: boolean;
  /** SVC_LEADER_LEASE_MS (D-183). */
  leaderLeaseMs: number;
  /** SVC_SHUTDOWN_TIMEOUT_MS (D-264). */
  shutdownTimeoutMs: number;
  /** DATABASE_URL: PostgreSQL instead of embedded PGlite. */
  databaseUrl: string | undefined;
  /** REDIS_URL: state shared by several instances (D-168); undefined keeps it in process. */
  redisUrl: string | undefined;
  /** SVC_TLS_ALLOW_CLASSICAL (D-157). */
  tlsAllowClassical: boolean;
  /** SVC_RPC_CLASSICAL_PORT (D-259): the classical-TLS listener of /rpc and /ws; undefined: none. */
  rpcClassicalPort: number | undefined;
  /** SVC_VALIDATORS. */
  validatorCount: number;
  /** QBFT_VALIDATOR_RPC_URLS: qbft_* calls are relayed there (real QBFT upstream). */
  validatorRpcUrls: string[];
  /** SVC_RATE_LIMIT (spec: 10); 0 lifts it. */
  institutionalRateLimit: number;
  /** SVC_RATE_LIMIT_RPC (D-024). */
  rpcRateLimit: number;
  /** SVC_RPC_GAS_CAP, SVC_RPC_SIMULATE_* (D-199, D-200, D-201). */
  rpcSimulation: SimulationLimits;
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
  /** The bounds of every origin's connections (D-204, D-205): SVC_REQUEST_TIMEOUT_MS, SVC_MAX_CONNECTIONS*. */
  connections: ConnectionSettings;
  /** SVC_HSTS_MAX_AGE (D-207), in seconds. */
  hstsMaxAge: number;
  /** D-265: OTEL_EXPORTER_OTLP_ENDPOINT (undefined: traces off) and OTEL_SERVICE_NAME. */
  tracing: { otlpEndpoint: string | undefined; serviceName: string };
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
    sharedChain: get('SVC_SHARED_CHAIN'),
    leaderLeaseMs: get('SVC_LEADER_LEASE_MS'),
    shutdownTimeoutMs: get('SVC_SHUTDOWN_TIMEOUT_MS'),
    databaseUrl: get('DATABASE_URL'),
    redisUrl: get('REDIS_URL'),
    tlsAllowClassical: get('SVC_TLS_ALLOW_CLASSICAL'),
    rpcClassicalPort: get('SVC_RPC_CLASSICAL_PORT'),
    validatorCount: get('SVC_VALIDATORS'),
    validatorRpcUrls,
    institutionalRateLimit: get('SVC_RATE_LIMIT'),
    rpcRateLimit: get('SVC_RATE_LIMIT_RPC'),
    rpcSimulation: {
      gasCap: get('SVC_RPC_GAS_CAP'),
      perClient: get('SVC_RPC_SIMULATE_PER_IP'),
      total: get('SVC_RPC_SIMULATE_TOTAL'),
      weight: get('SVC_RPC_SIMULATE_WEIGHT'),
    },
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
      syncBudgets: {
        perIdentity: get('SVC_WALLET_SYNC_BYTES_PER_IDENTITY'),
        perIpPerDay: get('SVC_WALLET_SYNC_BYTES_PER_IP'),
        total: get('SVC_WALLET_SYNC_BYTES_TOTAL'),
      },
      identitiesPerIpPerHour: get('SVC_WALLET_IDENTITIES_PER_IP'),
      keyGraceSeconds: get('SVC_WALLET_KEY_GRACE_S'),
      managed: {
        smtpUrl: get('SVC_SMTP_URL'),
        mailFrom: get('SVC_SMTP_FROM'),
        codesPerEmail: get('SVC_MANAGED_CODES_PER_EMAIL'),
        codesPerIp: get('SVC_MANAGED_CODES_PER_IP'),
      },
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
    connections: {
      requestTimeoutMs: get('SVC_REQUEST_TIMEOUT_MS'),
      maxConnections: get('SVC_MAX_CONNECTIONS'),
      maxConnectionsPerIp: get('SVC_MAX_CONNECTIONS_PER_IP'),
    },
    hstsMaxAge: get('SVC_HSTS_MAX_AGE'),
    tracing: { otlpEndpoint: get('OTEL_EXPORTER_OTLP_ENDPOINT'), serviceName: get('OTEL_SERVICE_NAME') },
  };
}
