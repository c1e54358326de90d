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
};

/** Options for runChecks. */
export interface RunOptions {
  /** Only run checks whose id equals one of these or starts with it followed by a dot. */
  only?: readonly string[];
  /** The clock used for durations (house rule 6). */
  clock?: Clock;
  /** Directory of the contract files (default: the repository's specs/). */
  specsDir?: URL;
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

/** The checks selected by `only` (all when absent); throws if a prefix selects nothing. */
export function selectChecks(checks: readonly Check[], only?: readonly string[]): Check[] {
  if (!only || only.length === 0) return [...checks];
  for (const prefix of only) {
    if (!checks.some((c) => matchesPrefix(c.id, prefix))) {
      throw new Error(`"only" prefix ${JSON.stringify(prefix)} matches no check in the catalogue`);
    }
  }
  return checks.filter((c) => only.some((prefix) => matchesPrefix(c.id, prefix)));
}

/** Runs the selected checks one after another (sequential, so rate limits are not tripped). */
export async function runChecks(
  catalogue: Catalogue,
  target: Target,
  options: RunOptions = {},
): Promise<CheckResult[]> {
  const clock = options.clock ?? systemClock;
  const specsDir = options.specsDir ?? DEFAULT_SPECS_DIR;
  const ctx: CheckContext = { target, clock, specsDir };
  const results: CheckResult[] = [];
  for (const check of selectChecks(catalogue.list(), options.only)) {
    results.push(await runOne(check, ctx));
  }
  return results;
}

/** Counts results by status. */
export function summarise(results: readonly { status: CheckOutcome['status'] }[]): Summary {
  const summary: Summary = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) summary[r.status] += 1;
  return summary;
}

async function runOne(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const entry = {
    id: check.id,
    title: check.title,
    surface: check.surface,
    severity: check.severity,
    source: check.source,
  };
  const missing = check.needs.filter((need) => !ctx.target.capabilities.has(need));
  if (missing.length > 0) {
    const names = missing.map((m) => `'${m}'`).join(', ');
    return {
      ...entry,
      status: 'skipped',
      reason: `needs capabilit${missing.length === 1 ? 'y' : 'ies'} ${names}, which the ${ctx.target.kind} target does not provide`,
      durationMs: 0,
    };
  }
  const started = ctx.clock.now();
  let verdict: CheckVerdict;
  try {
    verdict = sanitise(await check.run(ctx));
  } catch (err) {
    verdict = { status: 'failed', reason: describeError(err) };
  }
  return { ...verdict, ...entry, durationMs: Math.max(0, ctx.clock.now() - started) };
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
