/** `svckit admin payments return`: return a SETTLED pacs.008 payment to its debtor (D-062) through `/admin/v1/payments/{uetr}/return`. */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `payments` sub-command. */
export function paymentsCommand(): Command {
  const command = new Command('payments').description('pacs.008 payments.');
  command.addCommand(
    connectionOptions(new Command('return'))
      .description('Return a SETTLED payment: the amount goes back to the debtor and payment.returned is sent.')
      .argument('<uetr>', "the payment's UETR (UUID)")
      .option('--reason <text>', 'why it is returned')
      .action(
        action(async (uetr: string, options: AdminOptions & { reason?: string }) => {
          const sdk = await adminSdk();
          const body = options.reason !== undefined ? { reason: options.reason } : {};
          const returned = answer(await sdk.adminReturnPayment({ client: adminClient(options), path: { uetr }, body }));
          print(options, returned, (r) => `returned ${r.uetr} (${r.txRef}) in ${r.returnTxHash}`);
        }),
      ),
  );
  return command;
}
