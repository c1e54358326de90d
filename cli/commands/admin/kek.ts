/** `svckit admin kek rotate`: a new key-encryption key; the stored secrets are re-wrapped under it (`/admin/v1/kek/rotate`). */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `kek` sub-command. */
export function kekCommand(): Command {
  const command = new Command('kek').description('The key-encryption key that wraps stored secrets.');
  command.addCommand(
    connectionOptions(new Command('rotate'))
      .description('Create a new key-encryption key and re-wrap every stored key under it.')
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          const rotated = answer(await sdk.adminRotateKek({ client: adminClient(options) }));
          print(
            options,
            rotated,
            (r) => `rotated ${r.previousKekId} -> ${r.kekId} at ${r.rotatedAt}; ${r.rewrappedKeys} keys re-wrapped`,
          );
        }),
      ),
  );
  return command;
}
