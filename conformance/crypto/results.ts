// Result shapes shared by the ACVP and Wycheproof runners. Spec (surface F): "counts are stated
// separately; a skipped or not-applicable case is not a pass" - so total = passed + failed + skipped.

/** Counts of one run, stated separately. */
export interface Counts {
  /** Every case considered, skipped ones included. */
  total: number;
  /** Cases whose result matched. */
  passed: number;
  /** Cases whose result differed, or that threw. */
  failed: number;
  /** Cases not run (out-of-scope parameter set, interface not offered, ...), never passes. */
  skipped: number;
}

/** The status of one case. */
export type CaseStatus = 'passed' | 'failed' | 'skipped';

/** A failed case, named by test group and test case id. */
export interface CaseFailure {
  /** Test group id (ACVP tgId; for Wycheproof the 1-based group index). */
  tgId: number;
  /** Test case id. */
  tcId: number;
  /** What differed. */
  reason: string;
}

/** Results of one test group for one implementation. */
export interface GroupResult {
  /** Test group id. */
  tgId: number;
  /** The group's defining properties, e.g. "ML-DSA-65 external pure deterministic". */
  description: string;
  /** Counts for the group. */
  counts: Counts;
  /** Why cases were skipped, with how many each. */
  skipReasons: Record<string, number>;
  /** Every failure, with its tgId and tcId. */
  failures: CaseFailure[];
}

/** Zero counts. */
export function emptyCounts(): Counts {
  return { total: 0, passed: 0, failed: 0, skipped: 0 };
}

/** Adds `b` into `a` and returns `a`. */
export function addCounts(a: Counts, b: Counts): Counts {
  a.total += b.total;
  a.passed += b.passed;
  a.failed += b.failed;
  a.skipped += b.skipped;
  return a;
}

/** The sum of several counts. */
export function sumCounts(items: readonly Counts[]): Counts {
  return items.reduce((acc, c) => addCounts(acc, c), emptyCounts());
}

/** A fresh group result. */
export function newGroup(tgId: number, description: string): GroupResult {
  return { tgId, description, counts: emptyCounts(), skipReasons: {}, failures: [] };
}

/** Records one case outcome in a group. */
export function recordCase(group: GroupResult, tcId: number, outcome: { status: CaseStatus; reason?: string }): void {
  group.counts.total += 1;
  group.counts[outcome.status] += 1;
  if (outcome.status === 'skipped') {
    const reason = outcome.reason ?? 'skipped';
    group.skipReasons[reason] = (group.skipReasons[reason] ?? 0) + 1;
  } else if (outcome.status === 'failed') {
    group.failures.push({ tgId: group.tgId, tcId, reason: outcome.reason ?? 'failed' });
  }
}

/** Merges skip reasons of many groups: reason → count. */
export function mergeSkipReasons(groups: readonly { skipReasons: Record<string, number> }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of groups) for (const [reason, n] of Object.entries(g.skipReasons)) out[reason] = (out[reason] ?? 0) + n;
  return out;
}

/** True when the counts add up: total = passed + failed + skipped, all non-negative integers. */
export function countsConsistent(c: Counts): boolean {
  return (
    [c.total, c.passed, c.failed, c.skipped].every((n) => Number.isInteger(n) && n >= 0) &&
    c.total === c.passed + c.failed + c.skipped
  );
}

/** The fields every vector results file (ACVP, Wycheproof) has besides its vector provenance and per-set results. */
export interface VectorResultsFile<Kind extends string, Implementations> {
  /** Always the file's kind tag. */
  kind: Kind;
  /** Format version. */
  formatVersion: 1;
  /** When the run started. */
  generatedAt: string;
  /** The command that reproduces the run. */
  reproduce: string;
  /** Implementations and versions. */
  implementations: Implementations;
  /** Totals: all implementations together, and per implementation; skip reasons with counts. */
  summary: { total: Counts; byImplementation: Record<string, Counts>; skipReasons: Record<string, number> };
  /** Wall time in ms. */
  durationMs: number;
}

/** The summary of a results file from the counts per implementation and the skip reasons. */
export function resultsSummary(
  byImplementation: Record<string, Counts>,
  skipReasons: Record<string, number>,
): VectorResultsFile<string, unknown>['summary'] {
  return { total: sumCounts(Object.values(byImplementation)), byImplementation, skipReasons };
}
