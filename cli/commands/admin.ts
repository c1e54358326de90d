/**
 * `svckit admin`: every operation of a running server's administrator API (D-048), one sub-command group per
 * resource, each on the generated admin SDK (cli/commands/admin/; which command carries which operation:
 * admin/operations.ts).
 */
import { Command } from 'commander';
import { accountsCommand } from './admin/accounts.ts';
import { apiKeysCommand } from './admin/api-keys.ts';
import { chainAccountsCommand } from './admin/chain-accounts.ts';
import { evidenceCommand } from './admin/evidence.ts';
import { healthCommand } from './admin/health.ts';
import { kekCommand } from './admin/kek.ts';
import { metricsTokenCommand } from './admin/metrics-token.ts';
import { mldsaKeysCommand } from './admin/mldsa-keys.ts';
import { paymentsCommand } from './admin/payments.ts';
import { qbftCommand } from './admin/qbft.ts';
import { walletKeysCommand } from './admin/wallet-keys.ts';
import { tokenCommand } from './admin/token.ts';
import { webhooksCommand } from './admin/webhooks.ts';

/** Builds the `admin` command and its groups. */
export function adminCommand(): Command {
  return new Command('admin')
    .description(
      'Administrator operations on a running svckit server (admin API); works with Node 26 where curl cannot connect.',
    )
    .addCommand(healthCommand())
    .addCommand(apiKeysCommand())
    .addCommand(mldsaKeysCommand())
    .addCommand(accountsCommand())
    .addCommand(chainAccountsCommand())
    .addCommand(kekCommand())
    .addCommand(walletKeysCommand())
    .addCommand(webhooksCommand())
    .addCommand(paymentsCommand())
    .addCommand(qbftCommand())
    .addCommand(tokenCommand())
    .addCommand(evidenceCommand())
    .addCommand(metricsTokenCommand());
}
