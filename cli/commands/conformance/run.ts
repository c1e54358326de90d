/**
 * What `svckit conformance` does once its options are read (D-232): `--list`, or one run of the selected checks
 * — hand-written and generated — against the target (paced, with deadlines, the webhook preflight and cleanup on a
 * deployment; D-180 to D-182), one event stream, one report written in the formats asked for, the CI gates, and
 * the documented exit code.
 */
import type { Command } from 'commander';
import type { Catalogue } from '../../../conformance/catalogue.ts';
import type { EventSink } from '../../../conformance/events.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { commandLine, replayCaseCommand, replayCheckCommand } from './command-line.ts';
import { evaluateGates } from './gates.ts';
import {
  applyConfig,
  type ConformanceOptions,
  type GenerationOptions,
  type Gates,
  parseGeneration,
  parseFormats,
  parseGates,
  parseRate,
  parseSeconds,
  type ReportFormat,
  sourceOf,
} from './options.ts';
import { resolveSecrets } from './secrets.ts';
import { chooseReceiver, chooseTarget } from './targets.ts';

/** The exit codes (README, `--help`): 0 passed, 1 failed checks or an unmet gate, 2 bad usage, 3 unreachable. */
export const EXIT = { passed: 0, failed: 1, usage: 2, unreachable: 3 } as const;

/** A usage error: the message on stderr, exit 2. */
function usage(error: unknown): never {
  console.error(`svckit conformance: ${(error as Error).message}`);
  process.exit(EXIT.usage);
}

/** Runs the command; sets process.exitCode. */
export async function runConformance(options: ConformanceOptions, command: Command): Promise<void> {
  let formats: ReportFormat[];
  let rate: number | undefined;
  let deadlineMs: number | undefined;
  let generation: GenerationOptions;
  let gates: Gates;
  let receiver: Awaited<ReturnType<typeof chooseReceiver>>;
  try {
    applyConfig(command, options);
    resolveSecrets(options);
    formats = parseFormats(options.report);
    rate = parseRate(options.rate);
    deadlineMs = parseSeconds(options.checkTimeout);
    generation = await parseGeneration(options);
    gates = parseGates(options);
    receiver = await chooseReceiver(options);
  } catch (error) {
    usage(error);
  }
  const [{ buildCatalogue }, runner] = await Promise.all([
    import('../../../conformance/checks/index.ts'),
    import('../../../conformance/runner.ts'),
  ]);
  const receiverOnly = receiver !== undefined && !options.base && !options.wallet && !options.site && !options.rpc;
  let catalogue: Catalogue = buildCatalogue();
  if (receiver) {
    const side = await import('../../../conformance/receiver-side/index.ts');
    if (receiverOnly) catalogue = side.receiverSideCatalogue(receiver);
    else for (const check of side.receiverSideChecks(receiver)) catalogue.register(check);
  }
  const selection = {
    only: options.only,
    exclude: options.exclude,
    ...(generation.phases ? { phases: generation.phases } : {}),
  };
  let plan: ReturnType<typeof runner.planRun>;
  try {
    plan = runner.planRun(catalogue.list(), selection);
  } catch (error) {
    usage(error);
  }
  if (options.list) {
    // Every selected check, the generated ones too, whether or not this run's phases would reach them.
    for (const c of runner.selectChecks(catalogue.list(), options.only, options.exclude)) {
      const phases = 'phases' in c ? c.phases.join(',') : 'hand-written';
      console.log([c.id, c.surface, phases, sourceOf(c.source), c.title].join('\t'));
    }
    return;
  }
  const generatedOnly = plan.handWritten.length === 0;

  let target: Target;
  try {
    const noUrl = !options.base && !options.wallet && !options.site && !options.rpc;
    // The generated checks alone on the reference start their own stack (rate limits lifted): no other is needed.
    target =
      receiver && receiverOnly
        ? (await import('../../../conformance/receiver-side/index.ts')).receiverSideTarget(receiver)
        : generatedOnly && noUrl && options.target === 'reference'
          ? { kind: 'reference', capabilities: new Set() }
          : await chooseTarget(options);
  } catch (error) {
    usage(error);
  }
  const [report, progressModule, cleanup, stream, { webhookPreflight }, { runGeneratedChecks }, remote] =
    await Promise.all([
      import('../../../conformance/report/index.ts'),
      import('../../../conformance/progress.ts'),
      import('../../../conformance/cleanup.ts'),
      import('../../../conformance/report/stream.ts'),
      import('../../../conformance/webhooks/preflight.ts'),
      import('../../../conformance/engine/run-generated.ts'),
      import('../../../conformance/targets/remote.ts'),
    ]);
  const progress = options.quiet ? progressModule.silentProgress : progressModule.streamProgress(process.stderr);
  for (const origin of remote.plainHttpOrigins(target))
    progress.note(
      `warning: ${origin} is plain http (allowed on loopback only, D-233); the transport checks fail there, as the specification requires HTTPS`,
    );
  const deployment = target.kind === 'remote' && target.base !== undefined;
  if (target.kind === 'remote' || target.kind === 'rpc') {
    const { unreachableOrigins } = await import('../../../conformance/targets/reachable.ts');
    const down = await unreachableOrigins(target);
    if (down.length) {
      for (const line of down) console.error(`svckit conformance: unreachable: ${line}`);
      await target.close?.();
      process.exit(EXIT.unreachable);
    }
  }
  const { Pacer } = await import('../../../conformance/pacing.ts');
  const { withRunScope } = await import('../../../conformance/run-scope.ts');
  const pacer = new Pacer(rate !== undefined ? { rate } : {});
  const sinks: EventSink[] = [];
  const ndjson = formats.includes('ndjson')
    ? stream.ndjsonWriter(`${options.out}/${report.REPORT_FILES.ndjson}`)
    : undefined;
  if (ndjson) sinks.push(ndjson.sink);
  const har = options.har ? stream.harRecorder(options.har, report.svckitVersion()) : undefined;
  if (har) sinks.push(har.sink);
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
  const startedAt = Date.now();
  let outcome: Awaited<ReturnType<typeof runner.executeRun>> = { results: [] };
  let cleaned: Awaited<ReturnType<typeof cleanup.cleanUp>> | undefined;
  const exchanges = { requests: 0, waited: 0 };
  sinks.push((event) => {
    if (event.type !== 'case_sent' || event.source !== 'hand-written') return;
    exchanges.requests += 1;
  });
  try {
    outcome = await runner.executeRun(catalogue, target, {
      ...selection,
      progress,
      signal: interrupt.signal,
      seed: generation.seed,
      maxExamples: generation.maxExamples,
      ...(options.checks ? { settings: options.checks } : {}),
      ...(deadlineMs !== undefined ? { deadlineMs } : {}),
      ...(deployment ? { gates: [webhookPreflight()] } : {}),
      events: (event) => {
        for (const sink of sinks) sink(event);
      },
      generated: runGeneratedChecks,
      pacer,
    });
  } finally {
    if (deployment) {
      progress.start('cleanup: removing what the run created');
      cleaned = await withRunScope({ pacer }, () => cleanup.cleanUp(target));
      progress.note(cleanup.describeCleanup(cleaned));
    }
    progress.done();
    ndjson?.close();
    await target.close?.();
  }
  const context = {
    target,
    command: commandLine(process.argv.slice(2)),
    replayCheck: (id: string) => replayCheckCommand(process.argv.slice(2), id),
    replayCase: (file: string) => replayCaseCommand(options, file),
    startedAt,
    finishedAt: Date.now(),
    phases: outcome.engine?.phases ?? [],
    ...(outcome.engine ? { seed: outcome.engine.seed, maxExamples: outcome.engine.maxExamples } : {}),
    waited: runner.waitedOf(pacer),
    requests: exchanges.requests,
    ...(cleaned ? { cleanup: cleaned } : {}),
    interrupted: interrupt.signal.aborted,
  };
  const built = report.buildRunReport(outcome, context);
  built.gates = evaluateGates(built, gates);
  console.log(report.formatConsole(outcome.results, report.formatRunFooter(built)));
  const written = await report.writeRunReports(built, outcome.results, { formats, outDir: options.out });
  if (ndjson) written.unshift(`${options.out}/${report.REPORT_FILES.ndjson}`);
  if (har) {
    har.write();
    written.push(options.har as string);
  }
  for (const file of written) console.log(`report written: ${file}`);
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  if (exitCode !== undefined) process.exit(exitCode);
  const failed = built.summary.failed > 0 || built.gates.some((g) => !g.ok);
  process.exitCode = failed ? EXIT.failed : EXIT.passed;
}
