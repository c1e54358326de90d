// The console summary: one line per check, details under failures, and a final count line with
// skips stated separately (spec: "a skipped or not-applicable case is not a pass").
import { summarise, type CheckResult } from '../runner.ts';
import { detailLines } from './format.ts';

const LABEL = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/**
 * Formats results for a terminal; `footer` (the run's figures) comes before the last line, which is exactly
 * `N passed, N failed, N skipped`.
 */
export function formatConsole(results: readonly CheckResult[], footer?: string): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`${LABEL[result.status]} ${result.id} — ${result.title}`);
    if (result.status !== 'passed') {
      for (const line of detailLines(result)) lines.push(`    ${line.replace(/\n/g, '\n    ')}`);
    }
  }
  if (footer) lines.push(footer);
  lines.push(formatSummaryLine(results));
  return lines.join('\n');
}

/** The final line: `N passed, N failed, N skipped`. */
export function formatSummaryLine(results: readonly CheckResult[]): string {
  const s = summarise(results);
  return `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`;
}
