// Shared setup of the institutional (surface A) tests: one persisted in-process reference stack per file
// (persist: true gives the crash check its restart; DATABASE_URL, when set, puts it on a
// fresh PostgreSQL database), and a runner for a group of `institutional.*` checks that reports every non-pass.
import { Catalogue } from '../../conformance/catalogue.ts';
import type { Check } from '../../conformance/catalogue.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

/** Starts the reference stack with the default rate limit (10/s per IP) and persistence. */
export const startTarget = (env: Record<string, string> = {}): Promise<Target> =>
  referenceTarget({ persist: true, env });

/** Runs `checks` against `target` through the runner. */
export async function runGroup(target: Target, checks: Check[]): Promise<CheckResult[]> {
  const catalogue = new Catalogue();
  for (const check of checks) catalogue.register(check);
  return runChecks(catalogue, target);
}

/** `id: status: reason` of every result that did not pass (failed or skipped). */
export const nonPasses = (results: CheckResult[]) =>
  results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status}: ${r.reason}`);
