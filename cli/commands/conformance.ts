/**
 * `svckit conformance`: runs the check catalogue against a target and writes the reports. The harness is
 * loaded when the command runs, not when the CLI starts (it takes seconds; `svckit --help` should not).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { ReportFormat } from '../../conformance/report/write.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { readSetting } from '../../src/config.ts';

type ConformanceOptions = {
  base?: string;
  wallet?: string;
  site?: string;
  caCert?: string;
  adminToken?: string;
  receiverHost?: string;
  receiverPort?: string;
  receiverTlsDir?: string;
  target: 'reference' | 'specs' | 'mocks';
  report?: string;
  out: string;
  only?: string[];
  webhookReceiver?: string;
  webhookSecret?: string;
  webhookPreviousSecret?: string;
};

const REPORT_FORMATS: readonly ReportFormat[] = ['junit', 'json'];

/** Parses `--report junit,json`; an unknown format is a usage error. */
function parseFormats(value: string | undefined): ReportFormat[] {
  if (!value) return [];
  return value.split(',').map((format) => {
    if (!REPORT_FORMATS.includes(format as ReportFormat)) {
      throw new Error(`"--report" expected a comma-separated list of ${REPORT_FORMATS.join(', ')}, got "${format}"`);
    }
    return format as ReportFormat;
  });
}

/** Picks the target: URLs given → that deployment; otherwise the in-process reference stack or the specs alone. */
async function chooseTarget(options: ConformanceOptions): Promise<Target> {
  if (options.base || options.wallet || options.site) {
    const caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
    const [{ chooseReceiverTlsDir }, { remoteTarget }] = await Promise.all([
      import('../../conformance/webhooks/receiver-tls.ts'),
      import('../../conformance/targets/remote.ts'),
    ]);
    if (options.receiverTlsDir)
      chooseReceiverTlsDir(options.receiverTlsDir, options.receiverHost ? [options.receiverHost] : []);
    const adminToken = options.adminToken ?? readSetting('SVC_ADMIN_TOKEN');
    if (options.receiverPort !== undefined && !/^\d{1,5}$/.test(options.receiverPort))
      throw new Error(`"--receiver-port" expected a port number, got "${options.receiverPort}"`);
    return remoteTarget({
      base: options.base,
      wallet: options.wallet,
      site: options.site,
      caCert,
      ...(adminToken ? { adminToken } : {}),
      ...(options.receiverHost ? { receiverHost: options.receiverHost } : {}),
      ...(options.receiverPort ? { receiverPort: Number(options.receiverPort) } : {}),
    });
  }
  // Persisted, so the crash-recovery and stopped-chain checks (D-078) can restart it on the same data.
  if (options.target === 'specs') return (await import('../../conformance/targets/specs-only.ts')).specsOnlyTarget();
  if (options.target === 'mocks') return (await import('../../conformance/targets/mocks.ts')).mocksTarget();
  return (await import('../../conformance/targets/reference.ts')).referenceTarget({ persist: true });
}

/**
 * The institution's own webhook receiver under test (`--webhook-receiver`, D-171), if one was named. Alone it
 * is the whole target; beside a deployment's URLs its checks join the catalogue.
 */
async function chooseReceiver(options: ConformanceOptions) {
  if (options.webhookReceiver === undefined) {
    if (options.webhookSecret !== undefined || options.webhookPreviousSecret !== undefined)
      throw new Error('"--webhook-secret" and "--webhook-previous-secret" need "--webhook-receiver"');
    return undefined;
  }
  const { receiverUnderTest } = await import('../../conformance/receiver-side/index.ts');
  return receiverUnderTest({
    url: options.webhookReceiver,
    secret: options.webhookSecret,
    previousSecret: options.webhookPreviousSecret,
    ...(options.caCert ? { caCert: readFileSync(options.caCert, 'utf8') } : {}),
  });
}

/** Builds the `conformance` sub-command. */
export function conformanceCommand(): Command {
  return new Command('conformance')
    .description(
      'Run the conformance checks against the reference stack, the specs alone, or a deployment given by URL.',
    )
    .option('--base <url>', 'HTTPS root of the service host ({base_url})')
    .option('--wallet <url>', 'HTTPS base of the wallet session API ({wallet_api_url})')
    .option('--site <url>', 'HTTPS root of the vendor site serving the evidence document ({site_url})')
    .option('--ca-cert <file>', 'PEM file of an extra CA to trust (e.g. the reference stack development CA)')
    .option(
      '--admin-token <token>',
      "the deployment's administrator token (or SVC_ADMIN_TOKEN); enables checks that use the admin API",
    )
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
    .option('--report <formats>', 'reports to write besides the console summary: junit,json')
    .option('--out <dir>', 'folder for the reports', 'reports')
    .option('--only <prefixes...>', 'run only checks whose id starts with one of these dotted prefixes')
    .option(
      '--webhook-receiver <url>',
      "HTTPS URL of an institution's own webhook receiver to test (webhooks.receiver.* checks; alone, the only target)",
    )
    .option('--webhook-secret <secret>', 'the secret that receiver verifies deliveries with (never printed)')
    .option(
      '--webhook-previous-secret <secret>',
      'a secret the receiver held before, whose grace period is over (enables the rotation checks that need it)',
    )
    .action(async (options: ConformanceOptions) => {
      let target: Target;
      let formats: ReportFormat[];
      let receiver: Awaited<ReturnType<typeof chooseReceiver>>;
      const receiverOnly = options.webhookReceiver !== undefined && !options.base && !options.wallet && !options.site;
      try {
        formats = parseFormats(options.report);
        receiver = await chooseReceiver(options);
        target =
          receiver && receiverOnly
            ? (await import('../../conformance/receiver-side/index.ts')).receiverSideTarget(receiver)
            : await chooseTarget(options);
      } catch (error) {
        console.error(`svckit conformance: ${(error as Error).message}`);
        process.exit(2);
      }
      const [{ buildCatalogue }, { formatConsole }, { writeReports }, { runChecks, summarise }] = await Promise.all([
        import('../../conformance/checks/index.ts'),
        import('../../conformance/report/console.ts'),
        import('../../conformance/report/write.ts'),
        import('../../conformance/runner.ts'),
      ]);
      let catalogue = buildCatalogue();
      if (receiver) {
        const side = await import('../../conformance/receiver-side/index.ts');
        if (receiverOnly) catalogue = side.receiverSideCatalogue(receiver);
        else for (const check of side.receiverSideChecks(receiver)) catalogue.register(check);
      }
      const results = await runChecks(catalogue, target, { only: options.only }).finally(() => target.close?.());
      console.log(formatConsole(results));
      if (formats.length) {
        const written = await writeReports(results, { formats, outDir: options.out, target });
        for (const file of written) console.log(`report written: ${file}`);
      }
      process.exitCode = summarise(results).failed > 0 ? 1 : 0;
    });
}
