/** `svckit admin evidence`: the evidence document's build time and verification (`GET /admin/v1/evidence`, D-275). */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import { action, adminClient, answer, connectionOptions, print, type AdminOptions } from './connection.ts';

/** Builds the `evidence` sub-command. */
export function evidenceCommand(): Command {
  return connectionOptions(new Command('evidence'))
    .description('Show when the served evidence document was built and whether it verifies.')
    .action(
      action(async (options: AdminOptions) => {
        const sdk = await adminSdk();
        const state = answer(await sdk.adminGetEvidenceStatus({ client: adminClient(options) }));
        print(options, state, (s) =>
          [
            `${s.status}  generated ${s.generated ?? '-'}  age ${s.ageDays === null ? '-' : `${s.ageDays} days`}  violations ${s.violationCount}`,
            ...s.violations.map((v) => `  ${v.rule}  ${v.path}  ${v.message}`),
          ].join('\n'),
        );
      }),
    );
}
