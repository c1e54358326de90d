// Runs catalogue checks against a target. Spec rule (evidence document F): "counts are stated
// separately; a skipped or not-applicable case is not a pass", so skips are never folded into passes.
import type {
  Catalogue,
  Check,
  CheckContext,
  CheckOutcome,
  CheckSource,
  CheckVerdict,
  Severity,
  Surface,
} from './catalogue.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Target } from './targets/target.ts';
import { pathToFileURL } from 'node:url';
import { SPECS_DIR } from '../src/paths.ts';
import { silentProgress, withActivity, type Activity, type ProgressSink } from './progress.ts';
import { withinRun } from './run-scope.ts';

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
};

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
export function selectChecks(
  checks: readonly Check[],
  only?: readonly string[],
  exclude: readonly string[] = [],
): Check[] {
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

/** Runs the selected checks one after another (sequential, so rate limits are not tripped), in a run scope (D-250). */
export function runChecks(catalogue: Catalogue, target: Target, options: RunOptions = {}): Promise<CheckResult[]> {
  return withinRun(() => runSelected(catalogue, target, options));
}

async function runSelected(catalogue: Catalogue, target: Target, options: RunOptions): Promise<CheckResult[]> {
  const clock = options.clock ?? systemClock;
  const specsDir = options.specsDir ?? DEFAULT_SPECS_DIR;
  const progress = options.progress ?? silentProgress;
  const ctx: CheckContext = { target, clock, specsDir };
  const results: CheckResult[] = [];
  const selected = selectChecks(catalogue.list(), options.only, options.exclude);
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
    results.push(result);
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

function entryOf(check: Check) {
  return { id: check.id, title: check.title, surface: check.surface, severity: check.severity, source: check.source };
}

function skipped(check: Check, reason: string): CheckResult {
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
  const deadlineMs = options.deadlineMs ?? check.deadlineMs ?? DEFAULT_DEADLINE_MS;
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
