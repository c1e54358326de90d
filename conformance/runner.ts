// Runs catalogue checks against a target. Spec rule (evidence document F): "counts are stated
// separately; a skipped or not-applicable case is not a pass", so skips are never folded into passes.
import {
  type Catalogue,
  type Check,
  type GeneratedCheck,
  type GeneratedPhase,
  isGenerated,
  type RegisteredCheck,
  type CheckContext,
  type CheckOutcome,
  type CheckSource,
  type CheckVerdict,
  type Severity,
  type Surface,
} from './catalogue.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Target } from './targets/target.ts';
import { pathToFileURL } from 'node:url';
import { SPECS_DIR } from '../src/paths.ts';
import { silentProgress, withActivity, type Activity, type ProgressSink } from './progress.ts';
import { type EventSink, eventTime } from './events.ts';
import { currentRunScope, type Exchange, withRunScope } from './run-scope.ts';
import { Pacer } from './pacing.ts';
import type { EngineFailure, EngineResult } from './engine/core/types.ts';

/** One check's outcome together with the check's catalogue entry. */
export type CheckResult = CheckOutcome & {
  /** The check id. */
  id: string;
  /** The check title. */
  title: string;
  /** The check's surface. */
  surface: Surface;
  /** The check's severity. */
  severity: Severity;
  /** The check's source. */
  source: CheckSource;
  /** One line per request the HTTP layer sent again after a rate-limit answer (D-180). */
  retries?: string[];
  /** `generated` for a check generated from the contracts (D-232); hand-written otherwise. */
  origin?: 'generated';
  /** A generated check's cases: judged in total and per surface, and why cases were skipped. */
  cases?: CaseCounts;
  /** A generated check's kept failures, minimal cases first. */
  failures?: EngineFailure[];
};

/** The cases a generated check judged, stated separately, in total and per surface. */
export type CaseCounts = Summary & { bySurface: Record<string, Summary>; skipReasons: string[] };

/** What `--config` sets for one check or prefix (D-232). */
export interface CheckSetting {
  /** Turns the check off: it is reported as skipped with this reason. */
  skip?: string;
  /** Its deadline in seconds, over its own (hand-written checks). */
  timeoutSeconds?: number;
  /** `generated.response_time`: the p95 and p99 bounds of every operation, and per operation (ms). */
  p95Ms?: number;
  p99Ms?: number;
  operations?: Record<string, { p95Ms?: number; p99Ms?: number }>;
  /** A generated check that judges statuses: the statuses expected per operation (`METHOD /route`), D-245. */
  expectedStatuses?: Record<string, number[]>;
}

/** A check's deadline when it names none (D-181). */
export const DEFAULT_DEADLINE_MS = 60_000;

/**
 * A preflight run once before the first check it covers (D-181): when it returns a reason, every check it
 * covers is skipped with that reason instead of running into the same failure one by one.
 */
export interface Gate {
  /** Shown in progress and in the skip reasons. */
  name: string;
  /** The checks that depend on it. */
  covers(check: Check): boolean;
  /** Resolves to undefined when the checks can run, else to why not and how to fix it. */
  run(ctx: CheckContext): Promise<string | undefined>;
  /** Its own deadline (default DEFAULT_DEADLINE_MS). */
  deadlineMs?: number;
}

/** Options for runChecks. */
export interface RunOptions {
  /** Only run checks whose id equals one of these or starts with it followed by a dot. */
  only?: readonly string[];
  /** The clock used for durations (house rule 6). */
  clock?: Clock;
  /** Directory of the contract files (default: the repository's specs/). */
  specsDir?: URL;
  /** Skip checks whose id equals one of these or starts with it followed by a dot (applied after `only`). */
  exclude?: readonly string[];
  /** Every check's deadline in ms, in place of each check's own (`--check-timeout`, D-181). */
  deadlineMs?: number;
  /** Preflights run before the checks they cover. */
  gates?: readonly Gate[];
  /** Where progress goes (default: nowhere). */
  progress?: ProgressSink;
  /** Ends the run early: the running check is stopped and reported, no further check starts. */
  signal?: AbortSignal;
  /** The generated phases to run (D-232); without them a generated check runs only when `only` names it. */
  phases?: readonly GeneratedPhase[];
  /** fast-check seed of the generated cases (default 0). */
  seed?: number;
  /** Fuzz cases per operation (default 100). */
  maxExamples?: number;
  /** Per-check settings by id or prefix (`--config`); the longest matching prefix wins. */
  settings?: Readonly<Record<string, CheckSetting>>;
  /** Where the run's events go (the NDJSON report, the HAR file). */
  events?: EventSink;
  /** Runs the generated checks (the engine); given by the caller so the runner does not load the engine itself. */
  generated?: GeneratedRunner;
  /** The run's pacer (D-234; default: the caller's run scope's when it resends, else a new run pacer). */
  pacer?: Pacer;
}

/** Runs the selected generated checks in the given phases and turns their tallies into results. */
export type GeneratedRunner = (
  target: Target,
  plan: {
    checks: readonly GeneratedCheck[];
    phases: readonly GeneratedPhase[];
    seed: number;
    maxExamples: number;
    /** The settings of each planned check, from --config. */
    settings: ReadonlyMap<string, CheckSetting>;
  },
  options: { signal?: AbortSignal; events?: EventSink; progress: ProgressSink },
) => Promise<{ results: CheckResult[]; engine: EngineResult }>;

/** What one run produced: a result per check in the run, and the engine's figures when generated checks ran. */
export interface RunOutcome {
  results: CheckResult[];
  engine?: EngineResult;
}

/** Counts of each status, stated separately. */
export interface Summary {
  /** Checks that passed. */
  passed: number;
  /** Checks that failed. */
  failed: number;
  /** Checks that were skipped (never counted as passes). */
  skipped: number;
}

/** The repository's specs/ directory. */
export const DEFAULT_SPECS_DIR = pathToFileURL(`${SPECS_DIR}/`);

/** True when an id is selected by a prefix: equal to it, or below it at a dot boundary. */
export function matchesPrefix(id: string, prefix: string): boolean {
  const p = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
  return id === p || id.startsWith(`${p}.`);
}

/** The checks selected by `only` (all when absent) less those `exclude` names; throws if a prefix selects nothing. */
export function selectChecks<C extends RegisteredCheck>(
  checks: readonly C[],
  only?: readonly string[],
  exclude: readonly string[] = [],
): C[] {
  for (const [name, prefixes] of [
    ['only', only ?? []],
    ['exclude', exclude],
  ] as const) {
    for (const prefix of prefixes) {
      if (!checks.some((c) => matchesPrefix(c.id, prefix))) {
        throw new Error(`"${name}" prefix ${JSON.stringify(prefix)} matches no check in the catalogue`);
      }
    }
  }
  const chosen = !only || only.length === 0 ? checks : checks.filter((c) => only.some((p) => matchesPrefix(c.id, p)));
  return chosen.filter((c) => !exclude.some((prefix) => matchesPrefix(c.id, prefix)));
}

/** Runs the selected hand-written checks one after another (sequential, so rate limits are not tripped). */
export async function runChecks(
  catalogue: Catalogue,
  target: Target,
  options: RunOptions = {},
): Promise<CheckResult[]> {
  return (await executeRun(catalogue, target, options)).results;
}

/**
 * The checks of a run (D-232): those `only` and `exclude` select; a generated check runs when the run has
 * phases in common with it, or when `only` names it or its `generated` prefix (then in its own phases).
 */
export function planRun(
  checks: readonly RegisteredCheck[],
  options: Pick<RunOptions, 'only' | 'exclude' | 'phases'>,
): { handWritten: Check[]; generated: GeneratedCheck[]; phases: GeneratedPhase[]; outOfPhase: GeneratedCheck[] } {
  const selected = selectChecks(checks, options.only, options.exclude);
  const named = (c: RegisteredCheck) =>
    (options.only ?? []).some((p) => matchesPrefix(c.id, p) && matchesPrefix(p, 'generated'));
  const handWritten = selected.filter((c): c is Check => !isGenerated(c));
  const candidates = selected.filter(isGenerated).filter((c) => options.phases !== undefined || named(c));
  const phases = options.phases
    ? [...options.phases]
    : PHASE_ORDER.filter((p) => candidates.some((c) => c.phases.includes(p)));
  const generated = candidates.filter((c) => c.phases.some((p) => phases.includes(p)));
  const outOfPhase = candidates.filter((c) => !generated.includes(c));
  return {
    handWritten,
    generated,
    phases: phases.filter((p) => generated.some((c) => c.phases.includes(p))),
    outOfPhase,
  };
}

const PHASE_ORDER: readonly GeneratedPhase[] = ['examples', 'coverage', 'fuzz', 'stateful'];

/** The setting of `id`: the entry of the longest prefix that selects it. */
export function settingOf(settings: RunOptions['settings'], id: string): CheckSetting | undefined {
  const keys = Object.keys(settings ?? {})
    .filter((k) => matchesPrefix(id, k))
    .sort((a, b) => b.length - a.length);
  return keys[0] === undefined ? undefined : settings?.[keys[0]];
}

/**
 * One run (D-232): the selected hand-written checks one after another, then the selected generated checks
 * through the engine, one result per check, events on the way.
 */
export function executeRun(catalogue: Catalogue, target: Target, options: RunOptions = {}): Promise<RunOutcome> {
  const outer = currentRunScope();
  const pacer = options.pacer ?? (outer && outer.pacer.maxRetries > 0 ? outer.pacer : new Pacer());
  let n = 0;
  const onExchange = (exchange: Exchange) => {
    outer?.onExchange?.(exchange);
    options.events?.({
      type: 'case_sent',
      at: eventTime(exchange.startedAt),
      n: ++n,
      ...(exchange.check !== undefined ? { check: exchange.check } : {}),
      source: exchange.source,
      durationMs: Math.round(exchange.durationMs),
      rateLimited: exchange.rateLimited,
      request: exchange.request,
      ...(exchange.response ? { response: exchange.response } : {}),
      ...(exchange.error !== undefined ? { error: exchange.error } : {}),
    });
  };
  return withRunScope({ pacer, onExchange }, () => runInScope(catalogue, target, options));
}

/** Figures of the run's pacing: the rate-limit answers waited out and the time requests were held (D-234). */
export function waitedOf(pacer: Pacer): { answers: number; ms: number } {
  const all = Object.values(pacer.stats());
  return {
    answers: all.reduce((n, s) => n + s.rateLimited, 0),
    ms: Math.round(all.reduce((n, s) => n + s.waitedMs, 0)),
  };
}

async function runInScope(catalogue: Catalogue, target: Target, options: RunOptions): Promise<RunOutcome> {
  const clock = options.clock ?? systemClock;
  const emit = options.events ?? (() => undefined);
  const started = clock.now();
  const plan = planRun(catalogue.list(), options);
  const turnedOff = (c: RegisteredCheck) => settingOf(options.settings, c.id)?.skip;
  emit({
    type: 'run_started',
    at: eventTime(started),
    checks: [...plan.handWritten, ...plan.generated, ...plan.outOfPhase].map((c) => c.id),
    phases: plan.phases,
    ...(plan.generated.length ? { seed: options.seed ?? 0 } : {}),
  });
  const finish = (result: CheckResult) => {
    emit({
      type: 'check_finished',
      at: eventTime(clock.now()),
      check: result.id,
      status: result.status,
      ...(result.status !== 'passed' ? { reason: result.reason } : {}),
      durationMs: result.durationMs,
    });
    return result;
  };
  const results = await runSelected(
    plan.handWritten.filter((c) => !turnedOff(c)),
    target,
    options,
    finish,
  );
  for (const c of plan.handWritten.filter(turnedOff))
    results.push(finish(skipped(c, `turned off by the run's config: ${turnedOff(c)}`)));
  let engine: EngineResult | undefined;
  const running = plan.generated.filter((c) => !turnedOff(c));
  if (running.length && !options.signal?.aborted) {
    if (!options.generated) throw new Error('generated checks were selected, but the run has no engine');
    const done = await options.generated(
      target,
      {
        checks: running,
        phases: plan.phases,
        seed: options.seed ?? 0,
        maxExamples: options.maxExamples ?? 100,
        settings: new Map(
          running.flatMap((c) => {
            const setting = settingOf(options.settings, c.id);
            return setting ? [[c.id, setting] as const] : [];
          }),
        ),
      },
      { signal: options.signal, events: options.events, progress: options.progress ?? silentProgress },
    );
    engine = done.engine;
    for (const r of done.results) results.push(finish(r));
  }
  for (const c of plan.generated.filter(turnedOff))
    results.push(finish(skipped(c, `turned off by the run's config: ${turnedOff(c)}`)));
  for (const c of plan.outOfPhase)
    results.push(
      finish(
        skipped(
          c,
          `its phases (${c.phases.join(', ')}) are not among the run's (${(options.phases ?? []).join(', ')})`,
        ),
      ),
    );
  const summary = summarise(results);
  emit({
    type: 'run_finished',
    at: eventTime(clock.now()),
    summary,
    requests: engine?.requests ?? 0,
    durationMs: Math.max(0, clock.now() - started),
    interrupted: options.signal?.aborted ?? false,
  });
  return { results, ...(engine ? { engine } : {}) };
}

async function runSelected(
  selected: readonly Check[],
  target: Target,
  options: RunOptions,
  finish: (result: CheckResult) => CheckResult,
): Promise<CheckResult[]> {
  const clock = options.clock ?? systemClock;
  const specsDir = options.specsDir ?? DEFAULT_SPECS_DIR;
  const progress = options.progress ?? silentProgress;
  const ctx: CheckContext = { target, clock, specsDir };
  const results: CheckResult[] = [];
  const gated = new Map<Gate, string | undefined>();
  for (const [index, check] of selected.entries()) {
    if (options.signal?.aborted) break;
    const gate = options.gates?.find((g) => g.covers(check));
    if (gate && !gated.has(gate) && missingNeeds(check, target).length === 0) {
      progress.start(`preflight: ${gate.name}`);
      const outcome = await runTimed(`preflight: ${gate.name}`, gate.deadlineMs ?? DEFAULT_DEADLINE_MS, options, () =>
        gate.run(ctx).catch(describeError),
      );
      const reason = 'verdict' in outcome ? outcome.verdict.reason : outcome.value;
      gated.set(gate, reason);
      progress.note(
        `preflight ${gate.name}: ${reason === undefined ? 'passed' : `failed, its checks are skipped: ${reason}`}`,
      );
      if (options.signal?.aborted) break;
    }
    progress.start(check.id, index + 1, selected.length);
    const blocked = gate ? gated.get(gate) : undefined;
    const result = blocked
      ? skipped(check, `preflight ${gate!.name} failed: ${blocked}`)
      : await runOne(check, ctx, options);
    results.push(finish(result));
    progress.end(check.id, result.status, summarise(results));
  }
  return results;
}

/** Counts results by status. */
export function summarise(results: readonly { status: CheckOutcome['status'] }[]): Summary {
  const summary: Summary = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) summary[r.status] += 1;
  return summary;
}

/** The registry entry's fields a result repeats. */
export function entryOf(check: RegisteredCheck) {
  return {
    id: check.id,
    title: check.title,
    surface: check.surface,
    severity: check.severity,
    source: check.source,
    ...(isGenerated(check) ? { origin: 'generated' as const } : {}),
  };
}

function skipped(check: RegisteredCheck, reason: string): CheckResult {
  return { ...entryOf(check), status: 'skipped', reason, durationMs: 0 };
}

function missingNeeds(check: Check, target: Target): string[] {
  return check.needs.filter((need) => !target.capabilities.has(need));
}

/** What a timed run ended with: the function's value, or a verdict when its deadline passed or the run was stopped. */
type Timed<T> =
  | { value: T; retries: string[] }
  | { verdict: CheckVerdict & { status: 'failed' | 'skipped' }; retries: string[] };

/**
 * Runs `fn` as activity `name` with a deadline (D-181): when it passes, the activity's signal aborts what `fn`
 * waits for (its requests) and the outcome is a failure naming what it was waiting for; when the run's signal
 * aborts, the outcome is a skip.
 */
async function runTimed<T>(
  name: string,
  deadlineMs: number,
  options: RunOptions,
  fn: () => Promise<T>,
): Promise<Timed<T>> {
  const controller = new AbortController();
  const activity: Activity = { name, waitingFor: undefined, retries: [], signal: controller.signal };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Timed<T>>((resolve) => {
    timer = setTimeout(() => {
      const reason = `deadline of ${formatSeconds(deadlineMs)} passed while waiting for ${activity.waitingFor ?? 'the check to finish'}`;
      controller.abort(new Error(reason));
      resolve({ verdict: { status: 'failed', reason }, retries: activity.retries });
    }, deadlineMs);
    onAbort = () => {
      const reason = `the run was interrupted while waiting for ${activity.waitingFor ?? 'the check to finish'}`;
      controller.abort(new Error(reason));
      resolve({ verdict: { status: 'skipped', reason }, retries: activity.retries });
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  options.progress?.watch?.(activity);
  const ran = withActivity(activity, fn).then((value) => ({ value, retries: activity.retries }));
  ran.catch(() => undefined);
  try {
    return await Promise.race([ran, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}

const formatSeconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

async function runOne(check: Check, ctx: CheckContext, options: RunOptions): Promise<CheckResult> {
  const entry = entryOf(check);
  const missing = missingNeeds(check, ctx.target);
  if (missing.length > 0) {
    const names = missing.map((m) => `'${m}'`).join(', ');
    return skipped(
      check,
      `needs capabilit${missing.length === 1 ? 'y' : 'ies'} ${names}, which the ${ctx.target.kind} target does not provide`,
    );
  }
  const started = ctx.clock.now();
  const configured = settingOf(options.settings, check.id)?.timeoutSeconds;
  const deadlineMs =
    options.deadlineMs ??
    (configured !== undefined ? configured * 1000 : undefined) ??
    check.deadlineMs ??
    DEFAULT_DEADLINE_MS;
  let verdict: CheckVerdict;
  let retries: string[];
  try {
    const outcome = await runTimed(check.id, deadlineMs, options, () => check.run(ctx));
    retries = outcome.retries;
    verdict = 'verdict' in outcome ? outcome.verdict : sanitise(outcome.value);
  } catch (err) {
    retries = [];
    verdict = { status: 'failed', reason: describeError(err) };
  }
  return {
    ...verdict,
    ...entry,
    ...(retries.length ? { retries: [...retries] } : {}),
    durationMs: Math.max(0, ctx.clock.now() - started),
  };
}

/** Guards against checks that return a malformed verdict: those count as failures, never passes. */
function sanitise(verdict: unknown): CheckVerdict {
  if (typeof verdict !== 'object' || verdict === null) {
    return { status: 'failed', reason: `check returned ${JSON.stringify(verdict)} instead of a verdict` };
  }
  const v = verdict as Partial<CheckVerdict>;
  if (v.status !== 'passed' && v.status !== 'failed' && v.status !== 'skipped') {
    return { status: 'failed', reason: `check returned status ${JSON.stringify(v.status)}` };
  }
  if (v.status !== 'passed' && (typeof v.reason !== 'string' || v.reason.trim() === '')) {
    return { status: 'failed', reason: `check returned status '${v.status}' without a reason` };
  }
  const { durationMs: _ignored, ...rest } = verdict as CheckVerdict & { durationMs?: unknown };
  return rest as CheckVerdict;
}

/** The message of a thrown value, with its error class name. */
function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `threw ${typeof err === 'string' ? err : JSON.stringify(err)}`;
}
