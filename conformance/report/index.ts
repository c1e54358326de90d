/**
 * The run's reports (D-232): built from one document (build.ts), written in the formats asked for (write.ts),
 * the console summary always shown (console.ts and the footer below).
 */
import { readFileSync } from 'node:fs';
import { repoPath } from '../../src/paths.ts';
import type { RunReport } from './model.ts';

export { buildRunReport } from './build.ts';
export { formatConsole } from './console.ts';
export { REPORT_FILES, writeRunReports } from './write.ts';

/** The installed svckit's version (package.json), for the HAR creator. */
export function svckitVersion(): string {
  return (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string }).version;
}

const pct = (r: { covered: number; total: number }) => `${r.covered}/${r.total}`;

/** The lines between the per-check lines and the summary line: requests and waits, coverage and score, gates, cleanup. */
export function formatRunFooter(report: RunReport): string {
  const lines: string[] = [];
  for (const [name, s] of Object.entries(report.surfaces)) {
    if (!s.coverage && s.cases.passed + s.cases.failed + s.cases.skipped === 0) continue;
    const cov = s.coverage
      ? `; operations ${pct(s.coverage.operations)}, responses ${pct(s.coverage.responses)}, parameters ${pct(s.coverage.parameters)}`
      : '';
    lines.push(
      `generated ${name}: ${s.requests} ${name === 'webhooks' || name === 'evidence' ? 'cases judged in process' : 'requests'}, cases ${s.cases.passed} passed, ${s.cases.failed} failed, ${s.cases.skipped} skipped${cov}`,
    );
  }
  const waited = report.waited.answers
    ? `; waited out ${report.waited.answers} rate-limit answers; requests held ${(report.waited.ms / 1000).toFixed(1)} s, summed over origins`
    : '';
  const score = report.score !== undefined ? `; score ${report.score} (seed ${report.seed})` : '';
  lines.push(
    `run: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s${waited}; cases ${report.cases.passed} passed, ${report.cases.failed} failed, ${report.cases.skipped} skipped${score}`,
  );
  for (const check of report.checks) {
    const first = check.failures?.[0];
    if (!first) continue;
    const sequence = (first.case as { sequence?: string }).sequence;
    lines.push(
      `${check.id}: minimal case ${first.caseFile ?? ''} (${first.operation}: ${first.reason}${sequence ? `, ${sequence}` : ''}): ${first.message.slice(0, 200)}`,
    );
  }
  for (const gate of report.gates) lines.push(`gate ${gate.name}: ${gate.ok ? 'met' : 'NOT MET'} (${gate.message})`);
  if (report.cleanup?.failures.length) for (const f of report.cleanup.failures) lines.push(`not undone: ${f}`);
  return lines.join('\n');
}
