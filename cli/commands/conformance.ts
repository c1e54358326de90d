/**
 * `svckit conformance`: runs the check catalogue against a target and writes the reports. The harness is
 * loaded when the command runs, not when the CLI starts (it takes seconds; `svckit --help` should not).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
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
  exclude?: string[];
  list?: boolean;
  config?: string;
  rate?: string;
  checkTimeout?: string;
  quiet?: boolean;
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

/** `--rate 5` or `--rate 5/s`: requests per second per origin (D-180). */
function parseRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(String(value).trim());
  const rate = match ? Number(match[1]) : Number.NaN;
  if (!(rate > 0 && rate <= 10_000))
    throw new Error(`"--rate" expected requests per second (e.g. 5 or 5/s), got "${value}"`);
  return rate;
}

/** `--check-timeout 90`: every check's deadline in seconds (D-181). */
function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!(Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400))
    throw new Error(`"--check-timeout" expected seconds between 0 and 86400, got "${value}"`);
  return seconds * 1000;
}

/** Config keys whose values name files or folders: resolved against the config file's folder. */
const PATH_KEYS = new Set(['ca-cert', 'receiver-tls-dir', 'out']);

/**
 * Applies `--config <file>` (JSON or YAML; D-182): its keys are the long flag names, its values those of the flags
 * (a list for a flag taking several). A flag given on the command line wins; an unknown key is a usage error.
 */
function applyConfig(command: Command, options: ConformanceOptions): void {
  if (!options.config) return;
  const file = options.config;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `"--config" cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(
      `"--config" ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(
      `"--config" ${file} expected an object of flag names, got ${Array.isArray(parsed) ? 'a list' : typeof parsed}`,
    );
  const flags = new Map(command.options.map((o) => [o.long?.replace(/^--/, ''), o] as const));
  for (const [key, value] of Object.entries(parsed)) {
    const option = flags.get(key);
    if (!option || key === 'config')
      throw new Error(`"--config" ${file}: unknown key "${key}" (keys are the flag names, e.g. base, only, rate)`);
    const name = option.attributeName();
    if (command.getOptionValueSource(name) === 'cli') continue;
    const variadic = option.variadic;
    if (
      variadic
        ? !Array.isArray(value) || value.some((v) => typeof v !== 'string')
        : !['string', 'number', 'boolean'].includes(typeof value)
    )
      throw new Error(
        `"--config" ${file}: "${key}" expected ${variadic ? 'a list of strings' : 'a string, number or boolean'}`,
      );
    if (option.isBoolean() && typeof value !== 'boolean')
      throw new Error(`"--config" ${file}: "${key}" expected true or false`);
    const text = typeof value === 'string' && PATH_KEYS.has(key) ? path.resolve(path.dirname(file), value) : value;
    command.setOptionValueWithSource(name, typeof text === 'number' ? String(text) : text, 'config');
    (options as Record<string, unknown>)[name] = command.getOptionValue(name);
  }
}

/** The source of a check for `--list`: its decision, or the start of its quote. */
function sourceOf(source: { quote: string } | { decision: string }): string {
  if ('decision' in source) return source.decision;
  return JSON.stringify(source.quote.length > 60 ? `${source.quote.slice(0, 59)}…` : source.quote);
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
    .option('--exclude <prefixes...>', 'leave out checks whose id starts with one of these dotted prefixes')
    .option('--list', 'print the selected checks (id, surface, source, title) and exit')
    .option('--config <file>', 'JSON or YAML file whose keys are these flag names; flags given here win')
    .option('--rate <n/s>', "at most n requests per second to each of the deployment's origins (e.g. 5 or 5/s)")
    .option('--check-timeout <s>', "every check's deadline in seconds (default: each check's own, 60 s for most)")
    .option('--quiet', 'no progress on stderr')
    .action(async (options: ConformanceOptions, command: Command) => {
      let formats: ReportFormat[];
      let rate: number | undefined;
      let deadlineMs: number | undefined;
      let receiver: Awaited<ReturnType<typeof chooseReceiver>>;
      const receiverOnly = options.webhookReceiver !== undefined && !options.base && !options.wallet && !options.site;
      try {
        applyConfig(command, options);
        formats = parseFormats(options.report);
        rate = parseRate(options.rate);
        deadlineMs = parseSeconds(options.checkTimeout);
        receiver = await chooseReceiver(options);
      } catch (error) {
        console.error(`svckit conformance: ${(error as Error).message}`);
        process.exit(2);
      }
      if (options.list) {
        const [{ buildCatalogue }, { selectChecks }] = await Promise.all([
          import('../../conformance/checks/index.ts'),
          import('../../conformance/runner.ts'),
        ]);
        let checks: import('../../conformance/catalogue.ts').Check[];
        try {
          checks = selectChecks(buildCatalogue().list(), options.only, options.exclude);
        } catch (error) {
          console.error(`svckit conformance: ${(error as Error).message}`);
          process.exit(2);
        }
        for (const c of checks) console.log([c.id, c.surface, sourceOf(c.source), c.title].join('\t'));
        return;
      }
      let target: Target;
      try {
        target =
          receiver && receiverOnly
            ? (await import('../../conformance/receiver-side/index.ts')).receiverSideTarget(receiver)
            : await chooseTarget(options);
      } catch (error) {
        console.error(`svckit conformance: ${(error as Error).message}`);
        process.exit(2);
      }
      const [
        { buildCatalogue },
        { formatConsole },
        { writeReports },
        { runChecks, summarise, selectChecks },
        { setPacing },
        { streamProgress, silentProgress },
        { cleanUp, describeCleanup },
        { webhookPreflight },
      ] = await Promise.all([
        import('../../conformance/checks/index.ts'),
        import('../../conformance/report/console.ts'),
        import('../../conformance/report/write.ts'),
        import('../../conformance/runner.ts'),
        import('../../conformance/http.ts'),
        import('../../conformance/progress.ts'),
        import('../../conformance/cleanup.ts'),
        import('../../conformance/webhooks/preflight.ts'),
      ]);
      let catalogue = buildCatalogue();
      if (receiver) {
        const side = await import('../../conformance/receiver-side/index.ts');
        if (receiverOnly) catalogue = side.receiverSideCatalogue(receiver);
        else for (const check of side.receiverSideChecks(receiver)) catalogue.register(check);
      }
      try {
        selectChecks(catalogue.list(), options.only, options.exclude);
      } catch (error) {
        console.error(`svckit conformance: ${(error as Error).message}`);
        process.exit(2);
      }
      setPacing({ rate });
      const progress = options.quiet ? silentProgress : streamProgress(process.stderr);
      // D-182: SIGINT or SIGTERM stops the run, removes what it created, then exits 130 or 143; a second one exits at once.
      const interrupt = new AbortController();
      let exitCode: number | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        if (exitCode !== undefined) process.exit(exitCode);
        exitCode = signal === 'SIGINT' ? 130 : 143;
        progress.note(`${signal} received: stopping the running check, then cleaning up (again to exit at once)`);
        interrupt.abort(new Error(`${signal} received`));
      };
      process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
      let results: Awaited<ReturnType<typeof runChecks>>;
      try {
        results = await runChecks(catalogue, target, {
          only: options.only,
          exclude: options.exclude,
          progress,
          signal: interrupt.signal,
          ...(deadlineMs !== undefined ? { deadlineMs } : {}),
          ...(target.kind === 'remote' && target.base ? { gates: [webhookPreflight()] } : {}),
        });
      } finally {
        if (target.kind === 'remote' && target.base) {
          progress.start('cleanup: removing what the run created');
          progress.note(describeCleanup(await cleanUp(target)));
        }
        progress.done();
        await target.close?.();
      }
      console.log(formatConsole(results));
      if (formats.length) {
        const written = await writeReports(results, { formats, outDir: options.out, target });
        for (const file of written) console.log(`report written: ${file}`);
      }
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      if (exitCode !== undefined) process.exit(exitCode);
      process.exitCode = summarise(results).failed > 0 ? 1 : 0;
    });
}
