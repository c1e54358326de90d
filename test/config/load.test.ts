// The settings of `svckit serve` (src/config.ts, D-163): every default, every accepted form and every refusal
// with its exact message, and which bad value is reported first when several are.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_FX_RATES, parseFxRates } from '../../src/ledger/payments/fx.ts';

const btc = 'bc1q34axm2wk0u6w6eugsvxra88w5lp6q3wnr8mc77';
const trx = 'THFAbdFYCMpYzvf15QNDeZDbytdCydacDt';
const evm = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
const kek = 'A'.repeat(43);

/** One bad value per variable, with the message it gets, in the order the loader reports them. */
const REFUSALS: [string, string, string][] = [
  ['SVC_HOST', 'a b', 'SVC_HOST expected a host name or IP address, got "a b"'],
  [
    'QBFT_VALIDATOR_RPC_URLS',
    'http://v1:8545, ftp://v2',
    'QBFT_VALIDATOR_RPC_URLS[1] expected a http: or https: URL, got a ftp: URL',
  ],
  ['SVC_BASE_PORT', '65536', 'SVC_BASE_PORT expected a port number from 0 to 65535 (0 = ephemeral), got "65536"'],
  ['SVC_WALLET_PORT', 'x', 'SVC_WALLET_PORT expected a port number from 0 to 65535 (0 = ephemeral), got "x"'],
  ['SVC_SITE_PORT', '-1', 'SVC_SITE_PORT expected a port number from 0 to 65535 (0 = ephemeral), got "-1"'],
  ['SVC_BLOCK_TIME', '3601', 'SVC_BLOCK_TIME expected a whole number from 0 to 3600, got "3601"'],
  ['CHAIN_RPC_URL', 'https://user:secret@', 'CHAIN_RPC_URL expected a URL, got a value that does not parse as one'],
  ['SVC_CHAIN_TIMEOUT_MS', '99', 'SVC_CHAIN_TIMEOUT_MS expected a whole number from 100 to 600000, got "99"'],
  ['SVC_LEADER_LEASE_MS', '299', 'SVC_LEADER_LEASE_MS expected a whole number from 300 to 600000, got "299"'],
  [
    'SVC_SHUTDOWN_TIMEOUT_MS',
    '600001',
    'SVC_SHUTDOWN_TIMEOUT_MS expected a whole number from 0 to 600000, got "600001"',
  ],
  ['DATABASE_URL', 'mysql://db/x', 'DATABASE_URL expected a postgres: or postgresql: URL, got a mysql: URL'],
  ['SVC_TLS_ALLOW_CLASSICAL', 'yes', 'SVC_TLS_ALLOW_CLASSICAL expected true, false, 1 or 0, got "yes"'],
  ['SVC_VALIDATORS', '65', 'SVC_VALIDATORS expected a whole number from 1 to 64, got "65"'],
  ['SVC_RATE_LIMIT', '1.5', 'SVC_RATE_LIMIT expected a whole number from 0 to 1000000, got "1.5"'],
  ['SVC_RATE_LIMIT_RPC', '1000001', 'SVC_RATE_LIMIT_RPC expected a whole number from 0 to 1000000, got "1000001"'],
  ['SVC_RPC_GAS_CAP', '20999', 'SVC_RPC_GAS_CAP expected a whole number from 21000 to 1000000000, got "20999"'],
  ['SVC_RPC_SIMULATE_PER_IP', '0', 'SVC_RPC_SIMULATE_PER_IP expected a whole number from 1 to 1000, got "0"'],
  ['SVC_RATE_LIMIT_EXPLORER', 'many', 'SVC_RATE_LIMIT_EXPLORER expected a whole number from 0 to 1000000, got "many"'],
  ['SVC_RATE_LIMIT_ADMIN', '-5', 'SVC_RATE_LIMIT_ADMIN expected a whole number from 0 to 1000000, got "-5"'],
  [
    'SVC_PLATFORM_BIC',
    'svckgb2l',
    'SVC_PLATFORM_BIC expected a bank identifier code such as SVCKGB2LXXX, got "svckgb2l"',
  ],
  ['SVC_KEK', 'short', 'SVC_KEK expected 32 bytes in base64url (43 characters)'],
  ['SVC_RATE_LIMIT_WALLET', 'x', 'SVC_RATE_LIMIT_WALLET expected a whole number from 0 to 1000000, got "x"'],
  ['SVC_RATE_LIMIT_WALLET_AUTH', 'x', 'SVC_RATE_LIMIT_WALLET_AUTH expected a whole number from 0 to 1000000, got "x"'],
  ['SVC_RATE_LIMIT_SITE', 'x', 'SVC_RATE_LIMIT_SITE expected a whole number from 0 to 1000000, got "x"'],
  [
    'SVC_WALLET_PUBLIC_URL',
    'http://wallet.example.com',
    'SVC_WALLET_PUBLIC_URL expected an https origin such as https://wallet.example.com, got "http://wallet.example.com"',
  ],
  [
    'SVC_SITE_PUBLIC_URL',
    'https://site.example.com/x',
    'SVC_SITE_PUBLIC_URL expected an https origin such as https://wallet.example.com, got "https://site.example.com/x"',
  ],
  ['SVC_WALLET_FEE_BPS', '10001', 'SVC_WALLET_FEE_BPS expected a whole number from 0 to 10000, got "10001"'],
  [
    'SVC_WALLET_FEE_COLLECTORS',
    `1111111=${btc}`,
    `SVC_WALLET_FEE_COLLECTORS[0] expected chainId=address (one per chain, the address of that chain), got "1111111=${btc}"`,
  ],
  [
    'SVC_WALLET_HISTORY_SOURCES',
    'nope',
    'SVC_WALLET_HISTORY_SOURCES expected a JSON array of {chainId, kind, url, name?}, got "nope"',
  ],
  [
    'SVC_WALLET_HISTORY_TIMEOUT_MS',
    '60001',
    'SVC_WALLET_HISTORY_TIMEOUT_MS expected a whole number from 100 to 60000, got "60001"',
  ],
  ['SVC_NATIVE_CCY', 'svc', 'SVC_NATIVE_CCY expected a three-letter upper-case currency code such as SVC, got "svc"'],
  ['SVC_FX_RATES', 'EUR=0', 'SVC_FX_RATES expected a rate above 0, got "EUR=0"'],
  [
    'SVC_WEBHOOK_CA_FILE',
    'no/such/ca.pem',
    'SVC_WEBHOOK_CA_FILE expected a readable file, got "no/such/ca.pem" (not found)',
  ],
  ['SVC_WEBHOOK_CONCURRENCY', '0', 'SVC_WEBHOOK_CONCURRENCY expected a whole number from 1 to 1024, got "0"'],
  ['SVC_WS_MAX_SUBSCRIPTIONS', '0', 'SVC_WS_MAX_SUBSCRIPTIONS expected a whole number from 1 to 10000, got "0"'],
  [
    'SVC_WS_MAX_SOCKETS_PER_CREDENTIAL',
    '100001',
    'SVC_WS_MAX_SOCKETS_PER_CREDENTIAL expected a whole number from 1 to 100000, got "100001"',
  ],
  ['SVC_WS_MAX_SOCKETS_PER_IP', '0', 'SVC_WS_MAX_SOCKETS_PER_IP expected a whole number from 1 to 100000, got "0"'],
  [
    'SVC_WS_MAX_BUFFERED_BYTES',
    '1024',
    'SVC_WS_MAX_BUFFERED_BYTES expected a whole number from 65536 to 1073741824, got "1024"',
  ],
  ['SVC_RATE_LIMIT_WS_UPGRADE', 'x', 'SVC_RATE_LIMIT_WS_UPGRADE expected a whole number from 0 to 1000000, got "x"'],
  ['SVC_WEBHOOK_ALLOW_PRIVATE', 'on', 'SVC_WEBHOOK_ALLOW_PRIVATE expected true, false, 1 or 0, got "on"'],
  ['SVC_EVIDENCE_AT_START', 'off', 'SVC_EVIDENCE_AT_START expected true, false, 1 or 0, got "off"'],
  [
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'grpc://collector:4317',
    'OTEL_EXPORTER_OTLP_ENDPOINT expected a http: or https: URL, got a grpc: URL',
  ],
];

/** The message loadConfig throws for `env`. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('gives the documented defaults when nothing is set, and treats an empty value as unset', () => {
    const defaults = {
      dataDir: path.resolve('.data'),
      host: '127.0.0.1',
      basePort: 8443,
      walletPort: 8444,
      sitePort: 8445,
      blockTimeSeconds: 2,
      chainRpcUrl: undefined,
      chainTimeoutMs: 10_000,
      sharedChain: false,
      leaderLeaseMs: 3000,
      shutdownTimeoutMs: 12_000,
      databaseUrl: undefined,
      tlsAllowClassical: false,
      validatorCount: 4,
      validatorRpcUrls: [],
      institutionalRateLimit: 10,
      rpcRateLimit: 100,
      rpcSimulation: { gasCap: 2_000_000, perClient: 2, total: 4, weight: 20 },
      explorerRateLimit: 50,
      adminRateLimit: 10,
      platformBic: 'SVCKGB2LXXX',
      kek: undefined,
      wallet: {
        requestsPerSecond: 20,
        authRequestsPerSecond: 5,
        siteRequestsPerSecond: 50,
        publicUrl: undefined,
        sitePublicUrl: undefined,
        feeBps: 25,
        feeCollectors: [],
        historySources: [],
        historyTimeoutMs: 5000,
        extensionDir: path.resolve('dist/extension'),
        syncBudgets: { perIdentity: 8 * 1024 * 1024, perIpPerDay: 16 * 1024 * 1024, total: 1024 ** 3 },
        identitiesPerIpPerHour: 100,
        keyGraceSeconds: 3600,
        managed: { smtpUrl: undefined, mailFrom: 'svckit <no-reply@localhost>', codesPerEmail: 5, codesPerIp: 20 },
      },
      nativeCcy: 'SVC',
      fxRates: parseFxRates(DEFAULT_FX_RATES),
      webhookCaFile: undefined,
      webhookConcurrency: 32,
      ws: {
        maxSubscriptions: 100,
        maxSocketsPerCredential: 20,
        maxSocketsPerIp: 50,
        maxBufferedBytes: 4 * 1024 * 1024,
        upgradesPerSecond: 10,
      },
      webhookAllowPrivate: false,
      evidenceAtStart: true,
      logLevel: 'info',
      connections: { requestTimeoutMs: 30000, maxConnections: 1024, maxConnectionsPerIp: 128 },
      hstsMaxAge: 31536000,
      tracing: { otlpEndpoint: undefined, serviceName: 'svckit' },
    };
    expect(loadConfig({})).toEqual(defaults);
    const empty = Object.fromEntries(
      [...REFUSALS.map(([name]) => name), 'SVC_DATA_DIR', 'SVC_WALLET_EXTENSION_DIR', 'SVC_LOG_LEVEL'].map((name) => [
        name,
        '',
      ]),
    );
    // SVC_FX_RATES takes an empty value as given: a table with no currency but the native one.
    expect(loadConfig(empty)).toEqual({ ...defaults, fxRates: new Map() });
  });

  it('reads every setting given in an accepted form', () => {
    const config = loadConfig({
      SVC_DATA_DIR: 'tmp/data',
      SVC_HOST: '::',
      SVC_BASE_PORT: '0',
      SVC_WALLET_PORT: '65535',
      SVC_SITE_PORT: '9000',
      SVC_BLOCK_TIME: '0',
      CHAIN_RPC_URL: 'https://user:pass@node.example.com/v3/key',
      SVC_CHAIN_TIMEOUT_MS: '600000',
      SVC_SHARED_CHAIN: 'true',
      SVC_LEADER_LEASE_MS: '600000',
      SVC_SHUTDOWN_TIMEOUT_MS: '0',
      DATABASE_URL: 'postgresql://db.example.com/svc',
      SVC_TLS_ALLOW_CLASSICAL: '1',
      SVC_VALIDATORS: '64',
      QBFT_VALIDATOR_RPC_URLS: ' http://v1:8545 ,, https://v2 ',
      SVC_RATE_LIMIT: '0',
      SVC_RATE_LIMIT_RPC: '1',
      SVC_RPC_GAS_CAP: '21000',
      SVC_RPC_SIMULATE_PER_IP: '1000',
      SVC_RPC_SIMULATE_TOTAL: '1',
      SVC_RPC_SIMULATE_WEIGHT: '1',
      SVC_RATE_LIMIT_EXPLORER: '2',
      SVC_RATE_LIMIT_ADMIN: '1000000',
      SVC_PLATFORM_BIC: 'ABCDDEFF',
      SVC_KEK: kek,
      SVC_RATE_LIMIT_WALLET: '3',
      SVC_RATE_LIMIT_WALLET_AUTH: '4',
      SVC_RATE_LIMIT_SITE: '5',
      SVC_WALLET_PUBLIC_URL: 'https://wallet.example.com/',
      SVC_SITE_PUBLIC_URL: 'https://site.example.com',
      SVC_WALLET_FEE_BPS: '10000',
      SVC_WALLET_FEE_COLLECTORS: `bitcoin=${btc}, tron=${trx},1111111=${evm}`,
      SVC_WALLET_HISTORY_SOURCES: JSON.stringify([
        { chainId: 'bitcoin', kind: 'esplora', url: 'https://esplora.example.com/api/' },
        { chainId: '1', kind: 'etherscan', url: 'http://scan', name: 'main.scan' },
      ]),
      SVC_WALLET_HISTORY_TIMEOUT_MS: '100',
      SVC_WALLET_EXTENSION_DIR: 'build/ext',
      SVC_WALLET_KEY_GRACE_S: '0',
      SVC_NATIVE_CCY: 'XTS',
      SVC_FX_RATES: 'EUR=2',
      SVC_WEBHOOK_CA_FILE: 'package.json',
      SVC_WEBHOOK_CONCURRENCY: '1024',
      SVC_WS_MAX_SUBSCRIPTIONS: '1',
      SVC_WS_MAX_SOCKETS_PER_CREDENTIAL: '2',
      SVC_WS_MAX_SOCKETS_PER_IP: '3',
      SVC_WS_MAX_BUFFERED_BYTES: '65536',
      SVC_RATE_LIMIT_WS_UPGRADE: '0',
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      SVC_EVIDENCE_AT_START: '0',
      SVC_LOG_LEVEL: 'silent',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318',
      OTEL_SERVICE_NAME: 'svckit-eu-1',
    });
    expect(config).toEqual({
      dataDir: path.resolve('tmp/data'),
      host: '::',
      basePort: 0,
      walletPort: 65535,
      sitePort: 9000,
      blockTimeSeconds: 0,
      chainRpcUrl: 'https://user:pass@node.example.com/v3/key',
      chainTimeoutMs: 600_000,
      sharedChain: true,
      leaderLeaseMs: 600_000,
      shutdownTimeoutMs: 0,
      databaseUrl: 'postgresql://db.example.com/svc',
      tlsAllowClassical: true,
      validatorCount: 64,
      validatorRpcUrls: ['http://v1:8545', 'https://v2'],
      institutionalRateLimit: 0,
      rpcRateLimit: 1,
      rpcSimulation: { gasCap: 21_000, perClient: 1000, total: 1, weight: 1 },
      explorerRateLimit: 2,
      adminRateLimit: 1_000_000,
      platformBic: 'ABCDDEFF',
      kek,
      wallet: {
        requestsPerSecond: 3,
        authRequestsPerSecond: 4,
        siteRequestsPerSecond: 5,
        publicUrl: 'https://wallet.example.com',
        sitePublicUrl: 'https://site.example.com',
        feeBps: 10_000,
        feeCollectors: [
          { chainId: 'bitcoin', address: btc },
          { chainId: 'tron', address: trx },
          { chainId: '1111111', address: evm },
        ],
        historySources: [
          {
            chainId: 'bitcoin',
            kind: 'esplora',
            url: 'https://esplora.example.com/api',
            name: 'esplora-esplora.example.com',
          },
          { chainId: '1', kind: 'etherscan', url: 'http://scan', name: 'main.scan' },
        ],
        historyTimeoutMs: 100,
        extensionDir: path.resolve('build/ext'),
        syncBudgets: { perIdentity: 8 * 1024 * 1024, perIpPerDay: 16 * 1024 * 1024, total: 1024 ** 3 },
        identitiesPerIpPerHour: 100,
        keyGraceSeconds: 0,
        managed: { smtpUrl: undefined, mailFrom: 'svckit <no-reply@localhost>', codesPerEmail: 5, codesPerIp: 20 },
      },
      nativeCcy: 'XTS',
      fxRates: new Map([['EUR', 2n * 10n ** 18n]]),
      webhookCaFile: path.resolve('package.json'),
      webhookConcurrency: 1024,
      ws: {
        maxSubscriptions: 1,
        maxSocketsPerCredential: 2,
        maxSocketsPerIp: 3,
        maxBufferedBytes: 65536,
        upgradesPerSecond: 0,
      },
      webhookAllowPrivate: true,
      evidenceAtStart: false,
      logLevel: 'silent',
      connections: { requestTimeoutMs: 30000, maxConnections: 1024, maxConnectionsPerIp: 128 },
      hstsMaxAge: 31536000,
      tracing: { otlpEndpoint: 'http://collector.example:4318', serviceName: 'svckit-eu-1' },
    });
  });

  it('refuses a bad value of each setting with a message naming the variable', () => {
    for (const [name, value, message] of REFUSALS) expect(refusal({ [name]: value }), name).toBe(message);
  });

  it('reports the first bad value in a fixed order when several are bad', () => {
    const env = Object.fromEntries(REFUSALS.map(([name, value]) => [name, value]));
    for (const [name, , message] of REFUSALS) {
      expect(refusal(env)).toBe(message);
      delete env[name];
    }
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('names the field of a bad history source or collector', () => {
    const sources = (items: unknown) => refusal({ SVC_WALLET_HISTORY_SOURCES: JSON.stringify(items) });
    expect(sources({})).toBe('SVC_WALLET_HISTORY_SOURCES expected a JSON array of {chainId, kind, url, name?}');
    expect(sources([{ chainId: 'dogecoin' }])).toBe(
      'SVC_WALLET_HISTORY_SOURCES[0].chainId expected bitcoin, tron or an EVM chain id, got "dogecoin"',
    );
    expect(sources([{ chainId: 'bitcoin', kind: 'etherscan', url: 'http://x' }])).toBe(
      'SVC_WALLET_HISTORY_SOURCES[0].kind expected esplora (bitcoin), trongrid (tron) or etherscan (an EVM chain other than 1111111), got "etherscan" for bitcoin',
    );
    expect(sources([{ chainId: 'tron', kind: 'trongrid', url: 'ftp://x' }])).toBe(
      'SVC_WALLET_HISTORY_SOURCES[0].url expected an http or https URL, got "ftp://x"',
    );
    expect(sources([{ chainId: 'tron', kind: 'trongrid', url: 'https://x', name: 'Bad Name' }])).toBe(
      'SVC_WALLET_HISTORY_SOURCES[0].name expected lower-case letters, digits, ".", "_" or "-", got "Bad Name"',
    );
    expect(refusal({ SVC_WALLET_FEE_COLLECTORS: `bitcoin=${btc},bitcoin=${btc}` })).toBe(
      `SVC_WALLET_FEE_COLLECTORS[1] expected chainId=address (one per chain, the address of that chain), got "bitcoin=${btc}"`,
    );
    expect(refusal({ SVC_WALLET_FEE_COLLECTORS: `1=${evm.toLowerCase().replace('5b', '5B')}` })).toMatch(
      /^SVC_WALLET_FEE_COLLECTORS\[0\]/,
    );
    expect(refusal({ CHAIN_RPC_URL: 'not a url' })).not.toContain('not a url');
  });
});
