/** `svckit serve`: the reference stack (see src/server/main.ts). */
import { Command } from 'commander';

/** Builds the `serve` sub-command. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Start the reference stack: Anvil, PGlite and the three HTTPS origins with hybrid post-quantum TLS.')
    .addHelpText(
      'after',
      `
Settings (environment variables):
  SVC_DATA_DIR        data directory (PGlite, TLS material, Anvil state)      default ./.data
  SVC_HOST            interface to listen on                                  default 127.0.0.1
  SVC_BASE_PORT       base origin: /rpc /ws /api /wallet/api/v1 /admin/v1     default 8443 (0 = ephemeral)
  SVC_WALLET_PORT     wallet session API origin                               default 8444
  SVC_SITE_PORT       site origin: /.well-known/pqc-evidence.json             default 8445
  SVC_BLOCK_TIME      seconds between blocks, 0 = mine on each transaction    default 2
  CHAIN_RPC_URL       use this node instead of embedded Anvil
  SVC_CHAIN_TIMEOUT_MS  longest call to the chain node, in milliseconds       default 10000
  DATABASE_URL        use PostgreSQL instead of embedded PGlite
  SVC_TLS_ALLOW_CLASSICAL  also accept TLS clients without X25519MLKEM768     default false
  SVC_VALIDATORS      size of the emulated QBFT validator set                 default 4
  QBFT_VALIDATOR_RPC_URLS  validator RPC URLs to relay qbft_* to (real QBFT upstream)
  SVC_LOG_LEVEL       request log level (logs go to stderr)                   default info
  SVC_WEBHOOK_CA_FILE PEM file of extra CAs trusted for webhook receivers (besides the default store and the dev CA)
  SVC_WEBHOOK_CONCURRENCY  webhook attempts in flight at most                 default 32
  SVC_WS_MAX_SUBSCRIPTIONS  /ws subscriptions per connection (D-135)           default 100
  SVC_WS_MAX_SOCKETS_PER_CREDENTIAL  open /ws connections per credential     default 20
  SVC_WS_MAX_SOCKETS_PER_IP  open /ws connections per client IP              default 50
  SVC_WS_MAX_BUFFERED_BYTES  unsent bytes before a /ws reader is closed (D-136)  default 4194304
  SVC_RATE_LIMIT_WS_UPGRADE  /ws upgrade attempts per second per IP, 0 = off default 10
  SVC_EVIDENCE_AT_START  build a missing or stale evidence document in the background (D-153)  default true
  SVC_WEBHOOK_ALLOW_PRIVATE  also deliver webhooks to loopback, private and link-local
                      addresses (development and tests only, D-143)           default false
  SVC_FX_RATES        pacs.008 FX table, CCY=rate,... (native units per unit) default EUR=1.05,USD=0.95,GBP=1.20,CHF=1.08,JPY=0.0063
  SVC_NATIVE_CCY      currency code of the native settlement unit (D-049)    default SVC`,
    )
    .action(async () => {
      // Loaded when the command runs: the server takes seconds to import, which `svckit --help` should not.
      const { serve } = await import('../../server/main.ts');
      const { buildEvidenceAtStart } = await import('./evidence-at-start.ts');
      const path = await import('node:path');
      // D-153: a missing or stale evidence document is built in the background once the server is ready.
      await serve({ onReady: (config) => (config.evidenceAtStart ? buildEvidenceAtStart({ evidenceDir: path.join(config.dataDir, 'evidence') }) : undefined) });
    });
}
