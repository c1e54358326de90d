/**
 * The generated checks of a run (D-232): the engine against the chosen target — for the in-process reference, a
 * second stack of its own with the per-IP rate limits lifted (the hand-written rate-limit checks keep the spec's
 * limits on theirs) — its tallies turned into one result per generated check.
 */
import type { GeneratedCheck } from '../catalogue.ts';
import type { CaseCounts, CheckResult, CheckSetting, GeneratedRunner } from '../runner.ts';
import { entryOf } from '../runner.ts';
import { PHASES, type Phase } from './core/cases.ts';
import { DOCUMENT_CHECKS, DOCUMENT_SURFACES } from './core/documents.ts';
import { generatedName } from './core/registry.ts';
import type { NamedCheck } from './core/names.ts';
import type { CheckTally, EngineResult, ExpectedStatuses } from './core/types.ts';
import { STATUS_JUDGED } from './openapi/judges.ts';

/** Parses `--phases examples,coverage,fuzz`; an unknown phase throws (a usage error). */
export function parsePhases(value: string): Phase[] {
  return value.split(',').map((p) => {
    if (!(PHASES as readonly string[]).includes(p))
      throw new Error(`"--phases" expected a comma-separated list of ${PHASES.join(', ')}, got "${p}"`);
    return p as Phase;
  });
}

/** Parses a non-negative integer option; throws naming the option otherwise. */
export function parseCount(name: string, value: string, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > max)
    throw new Error(`"${name}" expected an integer from 0 to ${max}, got "${value}"`);
  return Number(value);
}

/** Runs the engine for the planned generated checks; the reference gets a stack of its own. */
export const runGeneratedChecks: GeneratedRunner = async (target, plan, options) => {
  const [{ referenceTarget }, { engineTargetOf, UNLIMITED_REFERENCE_ENV }, { runEngine }] = await Promise.all([
    import('../targets/reference.ts'),
    import('./target.ts'),
    import('./core/run.ts'),
  ]);
  const names = new Set(plan.checks.map((c) => generatedName(c.id)));
  options.progress.start(`generated checks: ${plan.phases.join(', ')} (seed ${plan.seed})`);
  const own = target.kind === 'reference' ? await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } }) : undefined;
  try {
    const engineTarget = await engineTargetOf(own ?? target);
    const engine = await runEngine(engineTarget, {
      phases: plan.phases,
      seed: plan.seed,
      maxExamples: plan.maxExamples,
      checks: names,
      ...expectedStatusesOf(plan.settings),
      ...(plan.settings.get('generated.response_time')
        ? { responseTime: plan.settings.get('generated.response_time') }
        : {}),
      // The AsyncAPI messages and the evidence schema, judged in process, when one of their checks is selected.
      documents: DOCUMENT_SURFACES.filter((surface) =>
        DOCUMENT_CHECKS.some((c) => names.has(c) && c.startsWith(surface === 'webhooks' ? 'message_' : 'evidence_')),
      ),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.events ? { events: options.events } : {}),
    });
    return { engine, results: plan.checks.map((check) => resultOf(check, engine)) };
  } finally {
    await own?.close?.();
  }
};

/**
 * One generated check's result from its tallies on every surface: failed when any case failed, passed when
 * cases passed and none failed, skipped when no case reached it (skipped cases are never passes).
 */
export function resultOf(check: GeneratedCheck, engine: EngineResult): CheckResult {
  const name = generatedName(check.id);
  const tallies = engine.tallies.filter((t) => t.check === name);
  const cases: CaseCounts = { passed: 0, failed: 0, skipped: 0, bySurface: {}, skipReasons: [] };
  for (const t of tallies) {
    cases.passed += t.passed;
    cases.failed += t.failed;
    cases.skipped += t.skipped;
    cases.bySurface[t.surface] = { passed: t.passed, failed: t.failed, skipped: t.skipped };
    for (const r of t.skipReasons) if (!cases.skipReasons.includes(r)) cases.skipReasons.push(r);
  }
  const failures = tallies.flatMap((t: CheckTally) => t.failures);
  const counts = `${cases.passed} passed, ${cases.failed} failed, ${cases.skipped} skipped`;
  // Its time: the phases whose cases it judges, on every surface.
  const durationMs = engine.timings.filter((t) => check.phases.includes(t.phase)).reduce((n, t) => n + t.ms, 0);
  const base = { ...entryOf(check), durationMs, cases, ...(failures.length ? { failures } : {}) };
  if (cases.failed > 0)
    return {
      ...base,
      status: 'failed',
      reason: `${counts} cases; first: ${failures[0]?.message ?? 'no failure kept'}`,
    };
  if (cases.passed > 0) return { ...base, status: 'passed', reason: `${counts} cases` };
  const why = cases.skipReasons[0] ?? `no case of its phases (${check.phases.join(', ')}) reached it on this target`;
  return { ...base, status: 'skipped', reason: `${counts} cases: ${why}` };
}

/** The `expectedStatuses` of the planned checks' settings, by check name (D-245). */
function expectedStatusesOf(settings: ReadonlyMap<string, CheckSetting>): { expectedStatuses?: ExpectedStatuses } {
  const listed = [...settings].flatMap(([id, s]) => {
    const name = generatedName(id) as NamedCheck;
    return s.expectedStatuses && STATUS_JUDGED.includes(name) ? [[name, s.expectedStatuses] as const] : [];
  });
  return listed.length ? { expectedStatuses: new Map(listed) } : {};
}
