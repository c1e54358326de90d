// The run report (conformance/report/model.ts) of an engine result, built as `svckit conformance` builds it
// (D-232): one result per generated check of the registry that has tallies (resultOf), then buildRunReport. The
// context is fixed (no hand-written check, no rate-limit wait, no gate, no cleanup); the replay commands are
// the command's own, for a run whose reports go to `out` and whose deployment is at `base`.
import { commandLine, replayCaseCommand, replayCheckCommand } from '../../../cli/commands/conformance/command-line.ts';
import { GENERATED_CHECKS, generatedName } from '../../../conformance/engine/core/registry.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { resultOf } from '../../../conformance/engine/run-generated.ts';
import { buildRunReport } from '../../../conformance/report/build.ts';
import type { RunReport } from '../../../conformance/report/model.ts';
import type { CheckResult } from '../../../conformance/runner.ts';

/** Where the run's reports went and the deployment its cases were sent to. */
export interface EngineReportOptions {
  /** The report folder (`--out`, default `reports`). */
  out?: string;
  /** The deployment's base URL (`--base`). */
  base?: string;
}

/** The results of the generated checks the engine tallied, in registry order, and the run report built from them. */
export function engineRunReport(
  engine: EngineResult,
  options: EngineReportOptions = {},
): { results: CheckResult[]; report: RunReport } {
  const tallied = new Set(engine.tallies.map((t) => t.check as string));
  const results = GENERATED_CHECKS.filter((check) => tallied.has(generatedName(check.id))).map((check) =>
    resultOf(check, engine),
  );
  const out = options.out ?? 'reports';
  const argv = [
    ...(options.base ? ['--base', options.base] : []),
    '--phases',
    engine.phases.join(','),
    '--seed',
    String(engine.seed),
    '--out',
    out,
  ];
  const report = buildRunReport(
    { results, engine },
    {
      command: commandLine(argv),
      replayCheck: (id) => replayCheckCommand(argv, id),
      replayCase: (file) => replayCaseCommand({ out, ...(options.base ? { base: options.base } : {}) }, file),
      startedAt: 0,
      finishedAt: engine.durationMs,
      phases: engine.phases,
      seed: engine.seed,
      maxExamples: engine.maxExamples,
      waited: { answers: 0, ms: 0 },
      requests: 0,
      interrupted: false,
    },
  );
  return { results, report };
}
