// The HTML report's header: the verdict line with the check counts stated separately ("a skipped or
// not-applicable case is not a pass", evidence document F), the run's figures, the target and the command.
import { command, counts, duration, esc, plural } from './html-parts.ts';
import type { RunReport } from './model.ts';

/** The run's verdict word: any failed check or gate fails it; a run in which nothing passed did not pass. */
export function verdictOf(report: RunReport): 'failed' | 'interrupted' | 'nothing passed' | 'passed' {
  if (report.summary.failed > 0 || report.gates.some((g) => !g.ok)) return 'failed';
  if (report.interrupted) return 'interrupted';
  return report.summary.passed === 0 ? 'nothing passed' : 'passed';
}

/** Each verdict's class (its colour) and its word. */
const VERDICTS = {
  failed: ['failed', 'Failed'],
  interrupted: ['skipped', 'Interrupted'],
  'nothing passed': ['skipped', 'Nothing passed'],
  passed: ['passed', 'Passed'],
} as const;

function verdictLine(report: RunReport): string {
  const [kind, word] = VERDICTS[verdictOf(report)];
  const s = report.summary;
  const gatesFailed = report.gates.filter((g) => !g.ok).length;
  const notUndone = report.cleanup?.failures.length ?? 0;
  const extra = [
    gatesFailed ? `<a href="#gates">${plural(gatesFailed, 'gate')} failed</a>` : '',
    notUndone ? `<a href="#cleanup">${plural(notUndone, 'thing')} the run created could not be undone</a>` : '',
    report.interrupted ? 'the run was interrupted before it ended: the counts are partial' : '',
  ].filter(Boolean);
  return (
    `<p id="verdict" class="verdict ${kind}"><strong>${word}</strong>: ` +
    `<a href="#failures">${s.failed} failed</a>, ${s.passed} passed, ${s.skipped} skipped ` +
    `<span class="muted">(a skipped check is not a pass)</span>${extra.length ? `; ${extra.join('; ')}` : ''}.</p>`
  );
}

const tile = (id: string, label: string, value: string, kind = '', note = '') =>
  `<div class="tile ${kind}"><dt>${label}</dt><dd><span id="${id}">${value}</span>${note && `<span class="note">${note}</span>`}</dd></div>`;

function figures(report: RunReport): string {
  const s = report.summary;
  return [
    '<dl class="figures">',
    tile('passed', 'Checks passed', String(s.passed), 'passed'),
    tile('failed', 'Checks failed', String(s.failed), 'failed'),
    tile('skipped', 'Checks skipped', String(s.skipped), 'skipped'),
    tile(
      'score',
      'Score',
      report.score === undefined ? '<span class="muted">no generated phases</span>' : String(report.score),
      '',
      report.score === undefined ? '' : 'out of 100',
    ),
    tile('requests', 'Requests', String(report.requests)),
    tile('duration', 'Duration', duration(report.durationMs)),
    tile(
      'waited',
      'Rate-limit waits',
      String(report.waited.answers),
      '',
      report.waited.answers
        ? `answers waited out; requests held ${duration(report.waited.ms)}, summed over origins`
        : '',
    ),
    '</dl>',
  ].join('');
}

function target(report: RunReport): string {
  const t = report.target;
  if (!t) return '<span class="muted">none (no target was reached)</span>';
  const urls = (['base', 'wallet', 'site', 'rpc'] as const)
    .filter((k) => t[k])
    .map((k) => `<li>${k} <code>${esc(t[k] ?? '')}</code></li>`);
  return [
    `${esc(t.kind)}${t.caCert ? ', extra CA certificate given' : ''}`,
    urls.length ? `<ul class="plain">${urls.join('')}</ul>` : '',
    t.capabilities.length ? `<span class="muted">capabilities: ${esc(t.capabilities.join(', '))}</span>` : '',
  ].join('');
}

function runFacts(report: RunReport): string {
  const generated = report.phases.length
    ? `${esc(report.phases.join(', '))}${report.seed === undefined ? '' : `, seed ${report.seed}`}` +
      `${report.maxExamples === undefined ? '' : `, ${report.maxExamples} fuzz examples per operation`}; ` +
      `cases ${counts(report.cases)}`
    : '<span class="muted">none</span>';
  return [
    '<dl class="facts">',
    `<dt>Target</dt><dd>${target(report)}</dd>`,
    `<dt>Command</dt><dd>${command(report.command, 'run-command', 'the command of the run')}</dd>`,
    `<dt>Generated phases</dt><dd>${generated}</dd>`,
    `<dt>Started</dt><dd><time>${esc(report.startedAt)}</time>, finished <time>${esc(report.finishedAt)}</time></dd>`,
    '</dl>',
  ].join('');
}

/** The page header: title, verdict, figures, run facts and the sections' links. */
export function header(report: RunReport, failed: number): string {
  return [
    '<header><h1>svckit conformance report</h1>',
    verdictLine(report),
    figures(report),
    runFacts(report),
    '<nav aria-label="Sections"><ul>',
    `<li><a href="#failures">Failures (${failed})</a></li><li><a href="#surfaces">Surfaces</a></li>`,
    '<li><a href="#gates">Gates</a></li><li><a href="#cleanup">Cleanup</a></li>',
    `<li><a href="#checks">Every check (${report.checks.length})</a></li></ul></nav></header>`,
  ].join('');
}
