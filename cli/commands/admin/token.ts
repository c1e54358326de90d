/**
 * `svckit admin token rotate`: a new administrator token (`POST /admin/v1/admin-token/rotate`, D-221). The new
 * token is printed once; the one this command authenticated with stops working at once, on every instance.
 */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, adminToken, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `token` sub-command. */
export function tokenCommand(): Command {
  const command = new Command('token').description('The administrator token this CLI authenticates with.');
  command.addCommand(
    connectionOptions(new Command('rotate'))
      .description(
        'Replace the administrator token: the new one is printed once, and the current one stops working at ' +
          'once on every instance. Keep the new one where SVC_ADMIN_TOKEN or --token-file reads it.',
      )
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          // D-221: the body repeats the current token, so the server knows the rotation is meant.
          const currentToken = adminToken(options);
          const rotated = answer(
            await sdk.adminRotateAdminToken({ client: adminClient(options), body: { currentToken } }),
          );
          print(
            options,
            rotated,
            (r) => `new administrator token (shown once; the previous one no longer works):\n${r.token}`,
          );
          // Where the retired token still sits, so the next command does not fail without a reason.
          const from =
            options.token !== undefined
              ? undefined
              : options.tokenFile === undefined
                ? 'SVC_ADMIN_TOKEN'
                : options.tokenFile === '-'
                  ? undefined
                  : options.tokenFile;
          if (from) console.error(`svckit admin: ${from} still holds the previous token; replace it with the new one`);
        }),
      ),
  );
  return command;
}
