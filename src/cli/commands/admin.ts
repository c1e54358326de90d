/**
 * `svckit admin`: operations of a running server's administrator API (D-048), one sub-command group per
 * resource, each on the generated admin SDK (src/cli/commands/admin/).
 */
import { Command } from 'commander';
import { chainAccountsCommand } from './admin/chain-accounts.ts';

/** Builds the `admin` command and its groups. */
export function adminCommand(): Command {
  return new Command('admin').description('Administrator operations on a running svckit server (admin API).').addCommand(chainAccountsCommand());
}
