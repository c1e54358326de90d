/**
 * `svckit admin accounts create|list|get|update|fund`: ledger accounts through `/admin/v1/accounts` (the
 * administrator creates accounts, sets their limits and status, and credits them from the funding account).
 */
import { Command } from 'commander';
import type { Account, AccountStatus } from '@svckit/sdk/admin';
import { adminSdk } from './sdk.ts';
import {
  action,
  adminClient,
  answer,
  connectionOptions,
  integer,
  print,
  table,
  type AdminOptions,
} from './connection.ts';

type AccountOptions = AdminOptions & {
  email?: string;
  dailyLimit?: number;
  singleLimit?: number;
  reference?: string;
  status?: AccountStatus;
};

/** Accounts as a text table. */
export function accountTable(accounts: Account[]): string {
  return table(
    ['ID', 'REFERENCE', 'EMAIL', 'STATUS', 'BALANCE', 'DAILY', 'SINGLE', 'ADDRESS'],
    accounts.map((a) => [
      a.id,
      a.reference,
      a.email,
      a.status,
      a.balance,
      String(a.dailyLimit),
      String(a.singleLimit),
      a.address,
    ]),
  );
}

const limitOptions = (command: Command) =>
  command
    .option('--daily-limit <units>', 'most the account may send per day, whole native units', integer)
    .option('--single-limit <units>', 'most one transfer may move, whole native units', integer);

/** Builds the `accounts` sub-command. */
export function accountsCommand(): Command {
  const command = new Command('accounts').description(
    'Ledger accounts: create, list, read, change limits or status, fund.',
  );
  command.addCommand(
    connectionOptions(new Command('create'))
      .description('Create an approved account with its own chain address.')
      .requiredOption('--email <email>', "the account holder's email")
      .requiredOption('--daily-limit <units>', 'most the account may send per day, whole native units', integer)
      .requiredOption('--single-limit <units>', 'most one transfer may move, whole native units', integer)
      .option('--reference <ref>', 'the account reference (default: the next ACC- number)')
      .action(
        action(async (options: AccountOptions) => {
          const sdk = await adminSdk();
          // The server checks every field (400 with its {error}); the CLI sends what it was given.
          const body = {
            email: options.email!,
            dailyLimit: options.dailyLimit!,
            singleLimit: options.singleLimit!,
            ...(options.reference ? { reference: options.reference } : {}),
          };
          print(options, answer(await sdk.adminCreateAccount({ client: adminClient(options), body })), (a) =>
            accountTable([a]),
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List accounts.')
      .option('--status <status>', 'approved, suspended or closed')
      .option('--page <n>', 'page number', integer, 1)
      .option('--limit <n>', 'accounts per page (1 to 200)', integer, 50)
      .action(
        action(async (options: AccountOptions & { page: number; limit: number }) => {
          const sdk = await adminSdk();
          const query = {
            page: options.page,
            limit: options.limit,
            ...(options.status ? { status: options.status } : {}),
          };
          const page = answer(await sdk.adminListAccounts({ client: adminClient(options), query }));
          print(
            options,
            page,
            (p) => `${p.total} accounts; page ${p.page} (${p.accounts.length} shown)\n${accountTable(p.accounts)}`,
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('get'))
      .description('Show one account with its balance.')
      .argument('<id>', 'account id (acc_…)')
      .action(
        action(async (id: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          print(options, answer(await sdk.adminGetAccount({ client: adminClient(options), path: { id } })), (a) =>
            accountTable([a]),
          );
        }),
      ),
  );
  command.addCommand(
    limitOptions(connectionOptions(new Command('update')))
      .description("Change an account's status or limits.")
      .argument('<id>', 'account id (acc_…)')
      .option('--status <status>', 'approved, suspended or closed')
      .action(
        action(async (id: string, options: AccountOptions) => {
          const sdk = await adminSdk();
          const body = {
            ...(options.status !== undefined ? { status: options.status } : {}),
            ...(options.dailyLimit !== undefined ? { dailyLimit: options.dailyLimit } : {}),
            ...(options.singleLimit !== undefined ? { singleLimit: options.singleLimit } : {}),
          };
          print(
            options,
            answer(await sdk.adminUpdateAccount({ client: adminClient(options), path: { id }, body })),
            (a) => accountTable([a]),
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('fund'))
      .description("Credit an account from the server's funding account.")
      .argument('<id>', 'account id (acc_…)')
      .argument('<amount>', 'native units, decimal with at most 2 fraction digits, e.g. 1000.00')
      .action(
        action(async (id: string, amount: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          const funded = answer(
            await sdk.adminFundAccount({ client: adminClient(options), path: { id }, body: { amount } }),
          );
          print(options, funded, (f) => `funded ${f.accountId} with ${f.amount} in ${f.txHash}; balance ${f.balance}`);
        }),
      ),
  );
  return command;
}
