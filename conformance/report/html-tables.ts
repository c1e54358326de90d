// The HTML report's two tables: the figures per surface with coverage bars (numbers in text, the bar only
// decoration), and every check of the run, hand-written and generated, with the filters the page's script
// applies. Rows are written here; the script only hides and shows them.
import { failureAnchor } from './html-failures.ts';
import { badge, bar, checkId, counts, duration, esc, plural } from './html-parts.ts';
import type { CoverageFigures, Counts, ReportedCheck, RunReport } from './model.ts';

const coverageCells = (coverage: CoverageFigures | undefined) =>
  (['operations', 'responses', 'parameters'] as const)
    .map((k) => `<td data-label="${k}" class="cov">${bar(coverage?.[k])}</td>`)
    .join('');

function surfaceRow(name: string, checks: Counts, cases: Counts, requests: number, coverage?: CoverageFigures) {
  return (
    `<th scope="row" data-label="surface">${esc(name)}</th><td data-label="checks">${counts(checks)}</td>` +
    `<td data-label="cases">${counts(cases)}</td><td data-label="requests" class="num">${requests}</td>` +
    coverageCells(coverage)
  );
}

/** The per-surface table, the run's totals last. */
export function surfacesSection(report: RunReport): string {
  const rows = Object.entries(report.surfaces).map(
    ([name, s]) => `<tr>${surfaceRow(name, s.checks, s.cases, s.requests, s.coverage)}</tr>`,
  );
  const total = surfaceRow('whole run', report.summary, report.cases, report.requests, report.coverage);
  return [
    '<section id="surfaces" aria-labelledby="surfaces-h"><h2 id="surfaces-h">Surfaces</h2>',
    '<p class="muted">Coverage is of the contracts by the generated cases: operations called, documented responses seen, parameters sent.</p>',
    '<table class="cards surfaces"><thead><tr><th scope="col">Surface</th><th scope="col">Checks</th>',
    '<th scope="col">Generated cases</th><th scope="col">Requests</th><th scope="col">Operations</th>',
    '<th scope="col">Responses</th><th scope="col">Parameters</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody><tfoot><tr class="total">${total}</tr></tfoot></table></section>`,
  ].join('');
}

/** The surfaces a check is listed under by the surface filter: its own and those its cases ran on. */
export function checkSurfaces(check: ReportedCheck): string[] {
  const names = new Set([check.surface, ...Object.keys(check.cases?.bySurface ?? {})]);
  for (const failure of check.failures ?? []) names.add(failure.surface);
  return [...names];
}

function checkRow(check: ReportedCheck, failedAt: number): string {
  const id = `<code>${checkId(check.id)}</code>`;
  const why = [
    check.reason ? `<p class="message">${esc(check.reason)}</p>` : '',
    ...(check.cases?.skipReasons ?? []).map((r) => `<p class="muted">skipped cases: ${esc(r)}</p>`),
    `<p class="source">${esc(check.source)}</p>`,
  ].join('');
  return [
    `<tr data-status="${esc(check.status)}" data-surfaces="${esc(checkSurfaces(check).join(' '))}" data-id="${esc(check.id.toLowerCase())}">`,
    `<td class="c-verdict">${badge(check.status)}</td>`,
    `<td class="c-check">${failedAt >= 0 ? `<a href="#${failureAnchor(failedAt)}">${id}</a>` : id}`,
    ` <span class="sev">${esc(check.severity)}</span><div class="title">${esc(check.title)}</div></td>`,
    `<td class="c-surface">${esc(check.surface)}</td><td class="c-origin">${esc(check.origin)}</td>`,
    check.cases
      ? `<td class="c-cases"><span class="label-narrow">generated cases: </span>${counts(check.cases)}</td>`
      : '<td class="c-cases none"><span class="muted">—</span></td>',
    `<td class="c-time num">${duration(check.durationMs)}</td>`,
    `<td class="c-why">${why}</td></tr>`,
  ].join('');
}

const option = (value: string, text: string) => `<option value="${esc(value)}">${esc(text)}</option>`;

/** Every check in one table, with its filters: verdict, surface and check id text. */
export function checksSection(report: RunReport, failed: readonly ReportedCheck[]): string {
  const surfaces = [...new Set(report.checks.flatMap(checkSurfaces))].sort();
  const s = report.summary;
  const rows = report.checks.map((check) => checkRow(check, failed.indexOf(check)));
  return [
    '<section id="checks" aria-labelledby="checks-h">',
    `<h2 id="checks-h">Every check (${report.checks.length})</h2>`,
    '<form id="filters" class="filters" role="search" aria-label="Filter the checks">',
    '<div><label for="f-verdict">Verdict</label><select id="f-verdict" name="verdict">',
    option('', 'any verdict'),
    option('failed', `failed (${s.failed})`),
    option('passed', `passed (${s.passed})`),
    option('skipped', `skipped (${s.skipped})`),
    '</select></div>',
    `<div><label for="f-surface">Surface</label><select id="f-surface" name="surface">${option('', 'every surface')}`,
    ...surfaces.map((name) => option(name, name === 'all' ? 'all (generated over every surface)' : name)),
    '</select></div>',
    '<div><label for="f-id">Check id contains</label>',
    '<input id="f-id" name="id" type="search" autocomplete="off" spellcheck="false" placeholder="e.g. explorer.tx"></div>',
    '<div><button type="reset">Clear filters</button></div></form>',
    `<p id="shown" class="muted" aria-live="polite">Showing all ${plural(report.checks.length, 'check')}.</p>`,
    '<table class="checks"><thead><tr><th scope="col">Verdict</th><th scope="col">Check</th>',
    '<th scope="col">Surface</th><th scope="col">Origin</th><th scope="col">Generated cases</th>',
    '<th scope="col">Time</th><th scope="col">Reason and source</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody></table>`,
    '<p id="no-match" hidden>No check matches these filters.</p></section>',
  ].join('');
}
