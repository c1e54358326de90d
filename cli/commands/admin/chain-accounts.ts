/**
 * `svckit admin chain-accounts add|list|remove`: the local chain's sender allow-list (D-050, D-152) through
 * `POST`, `GET` and `DELETE /admin/v1/chain/accounts`.
 */
import { Command } from 'commander';
import type { ChainAccount } from '@svckit/sdk/admin';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, integer, print, type AdminOptions } from './connection.ts';

/** The allow-list as a text table, the funding account's address first. */
export function chainAccountTable(page: {
  total: number;
  page: number;
  fundingAddress: string;
  accounts: ChainAccount[];
}): string {
  const rows = page.accounts.map((a) => `${a.address}  ${a.reason.padEnd(8)}  ${a.addedAt}`);
  return [
    `funding account ${page.fundingAddress}`,
    `${page.total} allowed; page ${page.page} (${page.accounts.length} shown)`,
    `${'ADDRESS'.padEnd(42)}  REASON    ADDED`,
    ...rows,
  ].join('\n');
}

/** Builds the `chain-accounts` sub-command. */
export function chainAccountsCommand(): Command {
  const command = new Command('chain-accounts').description(
    "The local chain's sender allow-list: addresses whose own keys may write through /rpc (D-152).",
  );
  command.addCommand(
    connectionOptions(new Command('add'))
      .description('Allow an address to send on the local chain and, with --amount, fund it from the funding account.')
      .argument('<address>', '0x-prefixed 20-byte address')
      .option('--amount <units>', 'native units to send, e.g. 5000.00')
      .action(
        action(async (address: string, options: AdminOptions & { amount?: string }) => {
          const sdk = await adminSdk();
          const client = adminClient(options);
          const added = answer(
            await sdk.adminAddChainAccount({
              client,
              body: { address, ...(options.amount !== undefined ? { amount: options.amount } : {}) },
            }),
          );
          const funded = added.txHash ? `; funded ${added.amount} in ${added.txHash}` : '';
          print(options, added, (a) => `allowed ${a.address} (${a.reason})${funded}; balance ${a.balance}`);
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List the allow-list, newest first.')
      .option('--page <n>', 'page number', integer, 1)
      .option('--limit <n>', 'entries per page (1 to 200)', integer, 50)
      .action(
        action(async (options: AdminOptions & { page: number; limit: number }) => {
          const sdk = await adminSdk();
          const client = adminClient(options);
          // The server checks the range of page and limit (400 with its {error}); the CLI passes what it was given.
          const page = answer(
            await sdk.adminListChainAccounts({
              client,
              query: { page: options.page, limit: options.limit },
            }),
          );
          print(options, page, chainAccountTable);
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('remove'))
      .description('Take an address off the allow-list; its later transactions through /rpc are refused.')
      .argument('<address>', '0x-prefixed 20-byte address')
      .action(
        action(async (address: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          const client = adminClient(options);
          answer(await sdk.adminRemoveChainAccount({ client, path: { address } }));
          print(options, { removed: address }, () => `removed ${address}`);
        }),
      ),
  );
  return command;
}
