// The HTML report's failures, shown before anything else a reader scrolls to: each failed check with its id,
// title, surface and reason; a hand-written check's request and expected and actual values; a generated
// check's kept cases, minimal first (model.ts), each with its exchange folded away and its replay command.
import { badge, checkId, command, esc, json, plural, pre, requestText, responseText } from './html-parts.ts';
import type { ReportedCheck, ReportedFailure } from './model.ts';

/** The anchor of the failed check at `index` among the failures, linked from the checks table. */
export const failureAnchor = (index: number): string => `failure-${index + 1}`;

const meta = (check: ReportedCheck) =>
  `<p class="meta">surface <strong>${esc(check.surface)}</strong> · ${esc(check.origin)} · ${esc(check.severity)}` +
  ` · <span class="source">${esc(check.source)}</span></p>`;

function handWritten(check: ReportedCheck, anchor: string): string {
  const parts: string[] = [];
  if (check.request)
    parts.push(`<details><summary>Request sent</summary>${pre(requestText(check.request), 'request')}</details>`);
  const expected = check.expected !== undefined;
  const actual = check.actual !== undefined;
  if (expected || actual)
    parts.push(
      '<div class="pair">',
      expected ? `<div><h4>Expected</h4>${pre(json(check.expected), 'expected')}</div>` : '',
      actual ? `<div><h4>Actual</h4>${pre(json(check.actual), 'actual')}</div>` : '',
      '</div>',
    );
  parts.push(`<p class="label">Run this check again</p>${command(check.replay, `${anchor}-replay`, 'the command')}`);
  return parts.join('');
}

function keptCase(failure: ReportedFailure, n: number, of: number, anchor: string): string {
  const id = `${anchor}-case-${n}`;
  const file = failure.caseFile ? ` Case file: <code>${esc(failure.caseFile)}</code>.` : '';
  return [
    `<div class="case"><h4>Case ${n} of ${of}: <code>${esc(failure.operation)}</code> on ${esc(failure.surface)}</h4>`,
    `<p class="message">${esc(failure.message)}</p>`,
    `<p class="muted">Made for: ${esc(failure.reason)}. ${failure.shrunk ? 'Shrunk by fast-check to this minimal case.' : 'As generated (not shrunk).'}${file}</p>`,
    `<details><summary>${failure.shrunk ? 'Minimal case' : 'Case'}, request and response</summary>`,
    `<h5>Case</h5>${pre(json(failure.case), 'case')}`,
    `<h5>Request</h5>${pre(requestText(failure.request), 'request')}`,
    `<h5>Response</h5>${pre(responseText(failure.response), 'response')}</details>`,
    `<p class="label">Replay this case</p>${command(failure.replay, id, `the replay command of case ${n}`)}</div>`,
  ].join('');
}

function generated(check: ReportedCheck, anchor: string): string {
  const kept = check.failures ?? [];
  const parts: string[] = [];
  if (check.cases)
    parts.push(
      `<p>Cases: ${check.cases.passed} passed, ${check.cases.failed} failed, ${check.cases.skipped} skipped; ` +
        `${plural(kept.length, 'case')} kept.</p>`,
    );
  kept.forEach((failure, at) => {
    parts.push(keptCase(failure, at + 1, kept.length, anchor));
  });
  parts.push(`<p class="label">Run this check again</p>${command(check.replay, `${anchor}-replay`, 'the command')}`);
  return parts.join('');
}

/** The failures section: every failed check, in registry order. */
export function failuresSection(failed: readonly ReportedCheck[]): string {
  const head = `<section id="failures" aria-labelledby="failures-h"><h2 id="failures-h">Failures (${plural(failed.length, 'check')})</h2>`;
  if (failed.length === 0) return `${head}<p class="ok-note">No check failed.</p></section>`;
  const articles = failed.map((check, at) => {
    const anchor = failureAnchor(at);
    return [
      `<article class="failure" id="${anchor}" aria-labelledby="${anchor}-h">`,
      `<h3 id="${anchor}-h">${badge('failed')} <code>${checkId(check.id)}</code> <span class="title">${esc(check.title)}</span></h3>`,
      meta(check),
      check.reason ? `<p class="message">${esc(check.reason)}</p>` : '',
      check.origin === 'generated' ? generated(check, anchor) : handWritten(check, anchor),
      '</article>',
    ].join('');
  });
  return `${head}${articles.join('')}</section>`;
}
