/**
 * What `svckit conformance` does once its options are read: `--list`, or the catalogue checks against the
 * target (paced, with deadlines, the webhook preflight and cleanup on a deployment; D-180 to D-182), then the
 * generated cases of the contracts when phases are asked for (D-185), then the reports.
 */
import type { Command } from 'commander';
import type { Catalogue } from '../../../conformance/catalogue.ts';
import type { CheckResult } from '../../../conformance/runner.ts';
import type { ReportFormat } from '../../../conformance/report/write.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import {
  applyConfig,
  type ConformanceOptions,
  type EngineOptions,
  isGeneratedPrefix,
  parseEngine,
  parseFormats,
  parseRate,
  parseSeconds,
  sourceOf,
} from './options.ts';
import { resolveSecrets } from './secrets.ts';
import { chooseReceiver, chooseTarget } from './targets.ts';

/** A usage error: the message on stderr, exit 2. */
function usage(error: unknown): never {
  console.error(`svckit conformance: ${(error as Error).message}`);
  process.exit(2);
}

/** Runs the command; sets process.exitCode (1 when any check or generated case failed). */
export async function runConformance(options: ConformanceOptions, command: Command): Promise<void> {
  let formats: ReportFormat[];
  let rate: number | undefined;
  let deadlineMs: number | undefined;
  let engine: EngineOptions | undefined;
  let receiver: Awaited<ReturnType<typeof chooseReceiver>>;
  try {
    applyConfig(command, options);
    resolveSecrets(options);
    formats = parseFormats(options.report);
    rate = parseRate(options.rate);
    deadlineMs = parseSeconds(options.checkTimeout);
    engine = await parseEngine(options);
    receiver = await chooseReceiver(options);
  } catch (error) {
    usage(error);
  }
  const { buildCatalogue } = await import('../../../conformance/checks/index.ts');
  const { runChecks, selectChecks, summarise } = await import('../../../conformance/runner.ts');
  // `--only generated` (with --phases) runs the engine alone; other prefixes select catalogue checks.
  const only = options.only?.filter((p) => !isGeneratedPrefix(p));
  const engineOnly = engine !== undefined && options.only !== undefined && only?.length === 0;
  const receiverOnly = receiver !== undefined && !options.base && !options.wallet && !options.site && !options.rpc;
  let catalogue: Catalogue = buildCatalogue();
  if (receiver) {
    const side = await import('../../../conformance/receiver-side/index.ts');
    if (receiverOnly) catalogue = side.receiverSideCatalogue(receiver);
    else for (const check of side.receiverSideChecks(receiver)) catalogue.register(check);
  }
  if (!engineOnly) {
    try {
      const selected = selectChecks(catalogue.list(), only, options.exclude);
      if (options.list) {
        for (const c of selected) console.log([c.id, c.surface, sourceOf(c.source), c.title].join('\t'));
        return;
      }
    } catch (error) {
      usage(error);
    }
  } else if (options.list) return;

  let target: Target;
  try {
    const noUrl = !options.base && !options.wallet && !options.site && !options.rpc;
    // The engine alone on the reference starts its own stack (rate limits lifted): no catalogue stack is needed.
    target =
      receiver && receiverOnly
        ? (await import('../../../conformance/receiver-side/index.ts')).receiverSideTarget(receiver)
        : engineOnly && noUrl && options.target === 'reference'
          ? { kind: 'reference', capabilities: new Set() }
          : await chooseTarget(options);
  } catch (error) {
    usage(error);
  }
  const [{ formatConsole }, { writeReports }, { withRunScope }, progressModule, { cleanUp, describeCleanup }] =
    await Promise.all([
      import('../../../conformance/report/console.ts'),
      import('../../../conformance/report/write.ts'),
      import('../../../conformance/run-scope.ts'),
      import('../../../conformance/progress.ts'),
      import('../../../conformance/cleanup.ts'),
    ]);
  const { webhookPreflight } = await import('../../../conformance/webhooks/preflight.ts');
  // D-180, D-250: one pacer for the whole run (checks, generated cases, cleanup), at `--rate` or adaptive.
  const { Pacer } = await import('../../../conformance/pacing.ts');
  const scope = { pacer: new Pacer(rate !== undefined ? { rate } : {}) };
  const progress = options.quiet ? progressModule.silentProgress : progressModule.streamProgress(process.stderr);
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
  const deployment = target.kind === 'remote' && target.base !== undefined;
  let results: CheckResult[] = [];
  let engineFailed = false;
  try {
    if (!engineOnly)
      results = await withRunScope(scope, () =>
        runChecks(catalogue, target, {
          only,
          exclude: options.exclude,
          progress,
          signal: interrupt.signal,
          ...(deadlineMs !== undefined ? { deadlineMs } : {}),
          ...(deployment ? { gates: [webhookPreflight()] } : {}),
        }),
      );
    if (!engineOnly) console.log(formatConsole(results));
    if (engine && !interrupt.signal.aborted) {
      const { runEngineCommand } = await import('../../../conformance/engine/command.ts');
      progress.start(`generated cases: ${engine.phases.join(', ')} (seed ${engine.seed})`);
      const run = await withRunScope(scope, () => runEngineCommand(target, { ...engine, outDir: options.out }));
      console.log(run.text);
      for (const file of run.written) console.log(`report written: ${file}`);
      engineFailed = run.result.tallies.some((t) => t.failed > 0);
    }
  } finally {
    if (deployment) {
      progress.start('cleanup: removing what the run created');
      progress.note(describeCleanup(await withRunScope(scope, () => cleanUp(target))));
    }
    progress.done();
    await target.close?.();
  }
  if (formats.length && !engineOnly) {
    const written = await writeReports(results, { formats, outDir: options.out, target });
    for (const file of written) console.log(`report written: ${file}`);
  }
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  if (exitCode !== undefined) process.exit(exitCode);
  process.exitCode = summarise(results).failed > 0 || engineFailed ? 1 : 0;
}
