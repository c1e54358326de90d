/** `svckit admin health`: the server's health as the admin console sees it (`GET /admin/v1/health`). */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `health` sub-command. */
export function healthCommand(): Command {
  return connectionOptions(new Command('health'))
    .description('Show the server version, chain ID, block number and whether the database and chain are up.')
    .action(
      action(async (options: AdminOptions) => {
        const sdk = await adminSdk();
        const health = answer(await sdk.adminGetHealth({ client: adminClient(options) }));
        print(
          options,
          health,
          (h) =>
            `${h.status}  svckit ${h.version}  chain ${h.chainId}  block ${h.blockNumber ?? '-'}  database ${h.checks.database}  chain ${h.checks.chain}`,
        );
      }),
    );
}
