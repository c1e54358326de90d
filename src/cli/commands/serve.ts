/** `svckit serve`: the reference stack (see src/server/main.ts). */
import { Command } from 'commander';
import { serve } from '../../server/main.ts';

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
  DATABASE_URL        use PostgreSQL instead of embedded PGlite
  SVC_TLS_ALLOW_CLASSICAL  also accept TLS clients without X25519MLKEM768     default false
  SVC_VALIDATORS      size of the emulated QBFT validator set                 default 4
  QBFT_VALIDATOR_RPC_URLS  validator RPC URLs to relay qbft_* to (real QBFT upstream)
  SVC_LOG_LEVEL       request log level (logs go to stderr)                   default info`,
    )
    .action(async () => {
      await serve();
    });
}
