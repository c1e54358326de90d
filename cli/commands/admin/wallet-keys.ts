/**
 * `svckit admin wallet-keys rotate <name>`: a fresh signing key of the wallet service; the retired one verifies
 * for SVC_WALLET_KEY_GRACE_S (`/admin/v1/wallet-keys/{name}/rotate`, D-215).
 */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';
import type { WalletKeyNameValue } from '@svckit/sdk/admin';

/** Builds the `wallet-keys` sub-command. */
export function walletKeysCommand(): Command {
  const command = new Command('wallet-keys').description(
    "The wallet service's signing keys: session tokens (token-signing) and extension releases (release-signing).",
  );
  command.addCommand(
    connectionOptions(new Command('rotate'))
      .description('Make a fresh key sign; the retired one keeps verifying for the grace period (D-215).')
      .argument('<name>', 'token-signing or release-signing')
      .action(
        action(async (name: WalletKeyNameValue, options: AdminOptions) => {
          const sdk = await adminSdk();
          const rotated = answer(await sdk.adminRotateWalletKey({ client: adminClient(options), path: { name } }));
          print(
            options,
            rotated,
            (r) =>
              `rotated ${r.name}: ${r.previousKid} -> ${r.kid} at ${r.rotatedAt}; ${r.previousKid} verifies until ${r.previousRetiresAt}`,
          );
        }),
      ),
  );
  return command;
}
