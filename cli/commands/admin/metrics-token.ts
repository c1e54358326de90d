/**
 * `svckit admin metrics-token issue`: a new read-only token for the Prometheus scraper of `GET {base_url}/metrics`
 * (`POST /admin/v1/metrics-token`, D-280). It is printed once and replaces the previous one on every instance.
 */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `metrics-token` sub-command. */
export function metricsTokenCommand(): Command {
  const command = new Command('metrics-token').description('The read-only token of GET /metrics (D-280).');
  command.addCommand(
    connectionOptions(new Command('issue'))
      .description(
        'Issue a new metrics token for a Prometheus scraper: printed once; the previous one stops working at once.',
      )
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          const issued = answer(await sdk.adminIssueMetricsToken({ client: adminClient(options) }));
          print(options, issued, (r) => `metrics token (shown once; the previous one no longer works):\n${r.token}`);
        }),
      ),
  );
  return command;
}
