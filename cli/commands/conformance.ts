/**
 * `svckit conformance`: runs the check catalogue, and on request the cases generated from the contracts, against
 * a target and writes the reports. The harness is loaded when the command runs, not when the CLI starts (it
 * takes seconds; `svckit --help` should not).
 */
import { Command, Option } from 'commander';
import type { ConformanceOptions } from './conformance/options.ts';
import { CONFORMANCE_SECRETS } from './conformance/secrets.ts';
import { secretOption } from './secrets.ts';

/** Builds the `conformance` sub-command. */
export function conformanceCommand(): Command {
  const command = new Command('conformance')
    .description(
      'Run the conformance checks against the reference stack, the specs alone, or a deployment given by URL.',
    )
    .option('--base <url>', 'HTTPS root of the service host ({base_url})')
    .option('--wallet <url>', 'HTTPS base of the wallet session API ({wallet_api_url})')
    .option('--site <url>', 'HTTPS root of the vendor site serving the evidence document ({site_url})')
    .option(
      '--rpc <url>',
      'a chain JSON-RPC node to test directly (https, or http on loopback, e.g. a local Anvil); alone, the whole target',
    )
    .option('--ca-cert <file>', 'PEM file of an extra CA to trust (e.g. the reference stack development CA)')
    .option(
      '--receiver-host <host>',
      "host name or IP at which the deployment reaches the harness's HTTPS webhook receiver (webhooks.* checks)",
    )
    .option('--receiver-port <port>', 'fixed port for the webhook receiver (default: ephemeral)')
    .option(
      '--receiver-tls-dir <dir>',
      "folder keeping the receiver's CA and certificate between runs (the deployment must trust <dir>/tls/ca.pem)",
    )
    .addOption(
      new Option('--target <kind>', 'target when no URL is given')
        .choices(['reference', 'specs', 'mocks'])
        .default('reference'),
    )
    .option('--report <formats>', 'reports to write besides the console summary: json,junit,html,ndjson')
    .option('--har <file>', 'record every exchange of the run as HAR 1.2, credentials and secrets redacted')
    .option('--out <dir>', 'folder for the reports', 'reports')
    .option('--only <prefixes...>', 'run only checks whose id starts with one of these dotted prefixes')
    .option(
      '--webhook-receiver <url>',
      "HTTPS URL of an institution's own webhook receiver to test (webhooks.receiver.* checks; alone, the only target)",
    )
    .option('--exclude <prefixes...>', 'leave out checks whose id starts with one of these dotted prefixes')
    .option('--list', 'print the selected checks (id, surface, source, title) and exit')
    .option(
      '--config <file>',
      'JSON or YAML file whose keys are these flag names, and `checks` for per-check settings (schema: conformance/config.schema.json); flags given here win',
    )
    .option('--rate <n/s>', "at most n requests per second to each of the deployment's origins (e.g. 5 or 5/s)")
    .option('--check-timeout <s>', "every check's deadline in seconds (default: each check's own, 60 s for most)")
    .option('--quiet', 'no progress on stderr')
    .option(
      '--phases <phases>',
      'also run the checks generated from the contracts, in these phases: examples,coverage,fuzz,stateful (`--only generated.<name>` runs one in its own phases)',
    )
    .option('--seed <n>', 'fast-check seed of the generated cases (default: random, printed)')
    .option('--max-examples <n>', 'fuzz cases per operation', '100')
    .option('--min-score <n>', 'exit 1 when the score of the generated checks is below n (0 to 100)')
    .option(
      '--min-coverage <bars>',
      'exit 1 when a contract coverage figure is below its bar, e.g. operations=90,responses=75 (percent)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 every check in the run passed (skips are not failures), 1 a check failed or a gate was not met,\n2 bad usage, 3 the target is unreachable, 130 and 143 interrupted by SIGINT and SIGTERM.',
    );
  // D-222: every secret also comes from a file or an environment variable, off the command line.
  for (const secret of CONFORMANCE_SECRETS) secretOption(command, secret, secret.valueName);
  return command.action(async (options: ConformanceOptions, command: Command) => {
    const { runConformance } = await import('./conformance/run.ts');
    await runConformance(options, command);
  });
}
