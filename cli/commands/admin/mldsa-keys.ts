/**
 * `svckit admin mldsa-keys register|list|update|revoke`: ML-DSA-65 public keys for per-request signatures
 * (spec: `Authorization: SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>`) through `/admin/v1/mldsa-keys`.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { MldsaKey, Permissions } from '@svckit/sdk/admin';
import { adminSdk } from './sdk.ts';
import { keyTable, keyUpdate } from './api-keys.ts';
import {
  action,
  AdminCliError,
  adminClient,
  answer,
  connectionOptions,
  list,
  print,
  type AdminOptions,
} from './connection.ts';

type MldsaOptions = AdminOptions & {
  name?: string;
  publicKey?: string;
  publicKeyFile?: string;
  permissions?: string[];
  accounts?: string[];
  allAccounts?: boolean;
};

const withFingerprint = (k: MldsaKey) => `${keyTable([k])}\nfingerprint ${k.fingerprint}`;

/** Builds the `mldsa-keys` sub-command. */
export function mldsaKeysCommand(): Command {
  const command = new Command('mldsa-keys').description(
    'ML-DSA-65 public keys that sign institutional requests (SVC-MLDSA).',
  );
  const scope = (c: Command) =>
    c
      .option(
        '--permissions <list>',
        'comma-separated: accounts:read, transfers:read, transfers:write, bank:connect, payments:write, chain:subscribe',
        list,
      )
      .option('--accounts <ids>', 'comma-separated account ids the key is limited to (default: every account)', list);
  command.addCommand(
    scope(connectionOptions(new Command('register')))
      .description('Register a public key (hex, 1952 bytes), from --public-key or --public-key-file.')
      .requiredOption('--name <name>', 'a label for the key')
      .option('--public-key <hex>', 'the ML-DSA-65 public key, hex')
      .option('--public-key-file <file>', 'a file holding the public key, hex')
      .action(
        action(async (options: MldsaOptions) => {
          const sdk = await adminSdk();
          const publicKey =
            options.publicKey ??
            (options.publicKeyFile !== undefined ? readFileSync(options.publicKeyFile, 'utf8').trim() : undefined);
          if (publicKey === undefined)
            throw new AdminCliError('a public key is needed: --public-key or --public-key-file');
          const body = {
            name: options.name!,
            publicKey,
            permissions: (options.permissions ?? []) as Permissions,
            ...(options.accounts ? { accountIds: options.accounts } : {}),
          };
          print(
            options,
            answer(await sdk.adminRegisterMldsaKey({ client: adminClient(options), body })),
            withFingerprint,
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List the registered keys.')
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          print(options, answer(await sdk.adminListMldsaKeys({ client: adminClient(options) })), (p) =>
            keyTable(p.mldsaKeys),
          );
        }),
      ),
  );
  command.addCommand(
    scope(connectionOptions(new Command('update')))
      .description("Change a key's name, permissions or account scope.")
      .argument('<id>', 'key id (mlk_…)')
      .option('--name <name>', 'a new label')
      .option('--all-accounts', 'lift the account scope: the key sees every account')
      .action(
        action(async (id: string, options: MldsaOptions) => {
          const sdk = await adminSdk();
          print(
            options,
            answer(
              await sdk.adminUpdateMldsaKey({
                client: adminClient(options),
                path: { id },
                body: keyUpdate(options),
              }),
            ),
            withFingerprint,
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('revoke'))
      .description('Revoke a key; requests it signs are refused from then on.')
      .argument('<id>', 'key id (mlk_…)')
      .action(
        action(async (id: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          answer(await sdk.adminRevokeMldsaKey({ client: adminClient(options), path: { id } }));
          print(options, { revoked: id }, () => `revoked ${id}`);
        }),
      ),
  );
  return command;
}
