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
  target: 'reference' | 'specs';
  report?: string;
  out: string;
  only?: string[];
  phases?: string;
  seed?: string;
  maxExamples: string;
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
  return (await import('../../conformance/targets/reference.ts')).referenceTarget({ persist: true });
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
      new Option('--target <kind>', 'target when no URL is given').choices(['reference', 'specs']).default('reference'),
    )
    .option('--report <formats>', 'reports to write besides the console summary: junit,json')
    .option('--out <dir>', 'folder for the reports', 'reports')
    .option('--only <prefixes...>', 'run only checks whose id starts with one of these dotted prefixes')
    .option(
      '--phases <phases>',
      'also run cases generated from the OpenAPI contracts: examples,coverage,fuzz (`--only generated` runs only these)',
    )
    .option('--seed <n>', 'fast-check seed of the generated cases (default: random, printed)')
    .option('--max-examples <n>', 'fuzz cases per operation', '100')
    .action(async (options: ConformanceOptions) => {
      let target: Target;
      let formats: ReportFormat[];
      let engine:
        | { phases: import('../../conformance/engine/cases.ts').Phase[]; seed: number; maxExamples: number }
        | undefined;
      try {
        formats = parseFormats(options.report);
        if (options.phases !== undefined) {
          const { parsePhases, parseCount } = await import('../../conformance/engine/command.ts');
          engine = {
            phases: parsePhases(options.phases),
            seed:
              options.seed !== undefined
                ? parseCount('--seed', options.seed, 2 ** 31 - 1)
                : Math.floor(Math.random() * 2 ** 31),
            maxExamples: parseCount('--max-examples', options.maxExamples, 100_000),
          };
        }
        // The engine alone on the reference starts its own stack (rate limits lifted): no catalogue stack is needed.
        const engineAlone =
          engine !== undefined && options.only?.every((p) => p === 'generated' || p.startsWith('generated.'));
        const noUrl = !options.base && !options.wallet && !options.site;
        target =
          engineAlone && noUrl && options.target === 'reference'
            ? { kind: 'reference', capabilities: new Set() }
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
      // `--only generated` (with --phases) runs the engine alone; other prefixes select catalogue checks.
      const only = options.only?.filter((p) => p !== 'generated' && !p.startsWith('generated.'));
      const engineOnly = options.phases !== undefined && options.only !== undefined && only?.length === 0;
      const results = engineOnly ? [] : await runChecks(buildCatalogue(), target, { only });
      if (!engine) await target.close?.();
      if (!engineOnly) console.log(formatConsole(results));
      let engineFailed = false;
      if (engine) {
        const { runEngineCommand } = await import('../../conformance/engine/command.ts');
        const run = await runEngineCommand(target, { ...engine, outDir: options.out }).finally(() => target.close?.());
        console.log(run.text);
        for (const file of run.written) console.log(`report written: ${file}`);
        engineFailed = run.result.tallies.some((t) => t.failed > 0);
      }
      if (formats.length) {
        const written = await writeReports(results, { formats, outDir: options.out, target });
        for (const file of written) console.log(`report written: ${file}`);
      }
      process.exitCode = summarise(results).failed > 0 || engineFailed ? 1 : 0;
    });
}
