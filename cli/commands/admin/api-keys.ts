/**
 * `svckit admin api-keys create|list|update|revoke`: bearer API keys of the institutional API (D-015, D-039)
 * through `/admin/v1/api-keys`. spec: "the raw token is displayed once at creation and cannot be recovered":
 * `create` prints it once and nothing else ever does.
 */
import { Command } from 'commander';
import type { ApiKey, ApiKeyCreated, Permissions } from '@svckit/sdk/admin';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, list, print, table, type AdminOptions } from './connection.ts';

type KeyOptions = AdminOptions & { name?: string; permissions?: string[]; accounts?: string[]; allAccounts?: boolean };

/** Keys (API or ML-DSA) as a text table. */
export function keyTable(
  keys: Array<Pick<ApiKey, 'id' | 'name' | 'permissions' | 'accountIds' | 'createdAt' | 'revokedAt'>>,
): string {
  return table(
    ['ID', 'NAME', 'PERMISSIONS', 'ACCOUNTS', 'CREATED', 'REVOKED'],
    keys.map((k) => [
      k.id,
      k.name,
      k.permissions.join(','),
      k.accountIds?.join(',') ?? 'all',
      k.createdAt,
      k.revokedAt ?? '-',
    ]),
  );
}

/** The optional body fields of a key update from the options (`--all-accounts` lifts the account scope). */
export function keyUpdate(options: KeyOptions): {
  name?: string;
  permissions?: Permissions;
  accountIds?: string[] | null;
} {
  return {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.permissions !== undefined ? { permissions: options.permissions as Permissions } : {}),
    ...(options.accounts !== undefined ? { accountIds: options.accounts } : {}),
    ...(options.allAccounts ? { accountIds: null } : {}),
  };
}

const scopeOptions = (command: Command) =>
  command
    .option(
      '--permissions <list>',
      'comma-separated: accounts:read, transfers:read, transfers:write, bank:connect, payments:write, chain:subscribe',
      list,
    )
    .option('--accounts <ids>', 'comma-separated account ids the key is limited to (default: every account)', list);

/** Builds the `api-keys` sub-command. */
export function apiKeysCommand(): Command {
  const command = new Command('api-keys').description('Bearer API keys of the institutional API.');
  command.addCommand(
    scopeOptions(connectionOptions(new Command('create')))
      .description('Issue a key; its raw svc_ token is printed once and cannot be shown again.')
      .requiredOption('--name <name>', 'a label for the key')
      .action(
        action(async (options: KeyOptions) => {
          const sdk = await adminSdk();
          const body = {
            name: options.name!,
            permissions: (options.permissions ?? []) as Permissions,
            ...(options.accounts ? { accountIds: options.accounts } : {}),
          };
          const created = answer(await sdk.adminCreateApiKey({ client: adminClient(options), body }));
          print(options, created, (k: ApiKeyCreated) => `${keyTable([k])}\ntoken (shown once): ${k.token}`);
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List the keys (never their tokens).')
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          const page = answer(await sdk.adminListApiKeys({ client: adminClient(options) }));
          print(options, page, (p) => keyTable(p.apiKeys));
        }),
      ),
  );
  command.addCommand(
    scopeOptions(connectionOptions(new Command('update')))
      .description("Change a key's name, permissions or account scope.")
      .argument('<id>', 'key id (key_…)')
      .option('--name <name>', 'a new label')
      .option('--all-accounts', 'lift the account scope: the key sees every account')
      .action(
        action(async (id: string, options: KeyOptions) => {
          const sdk = await adminSdk();
          const updated = answer(
            await sdk.adminUpdateApiKey({
              client: adminClient(options),
              path: { id },
              body: keyUpdate(options),
            }),
          );
          print(options, updated, (k) => keyTable([k]));
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('revoke'))
      .description('Revoke a key; requests with it are refused from then on.')
      .argument('<id>', 'key id (key_…)')
      .action(
        action(async (id: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          answer(await sdk.adminRevokeApiKey({ client: adminClient(options), path: { id } }));
          print(options, { revoked: id }, () => `revoked ${id}`);
        }),
      ),
  );
  return command;
}
