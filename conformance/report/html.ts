// The run's HTML report: one self-contained file written from the run report (model.ts), readable when opened
// from disk. In order: the verdict and the run's figures, the failures, the figures per surface with coverage
// bars, the gates, the cleanup (what could not be undone first), and every check with filters. Rows are
// written here, escaped; the inline script only filters them and copies commands. The page's CSP allows its
// own style sheet and script (by hash) and nothing else: no request leaves the file.
import { createHash } from 'node:crypto';
import { header } from './html-header.ts';
import { failuresSection } from './html-failures.ts';
import { badge, esc, plural } from './html-parts.ts';
import { SCRIPT } from './html-script.ts';
import { STYLE } from './html-style.ts';
import { checksSection, surfacesSection } from './html-tables.ts';
import type { RunReport } from './model.ts';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const CSP = [
  "default-src 'none'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(SCRIPT)}`,
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function gatesSection(report: RunReport): string {
  const head = '<section id="gates" aria-labelledby="gates-h"><h2 id="gates-h">Gates</h2>';
  if (report.gates.length === 0)
    return `${head}<p class="muted">No gate was set (<code>--min-score</code>, <code>--min-coverage</code>).</p></section>`;
  const items = report.gates.map(
    (g) => `<li>${badge(g.ok ? 'ok' : 'failed')} <code>${esc(g.name)}</code> ${esc(g.message)}</li>`,
  );
  return `${head}<ul class="gates">${items.join('')}</ul></section>`;
}

function cleanupSection(report: RunReport): string {
  const head = '<section id="cleanup" aria-labelledby="cleanup-h"><h2 id="cleanup-h">Cleanup</h2>';
  const c = report.cleanup;
  if (!c) return `${head}<p class="muted">No cleanup ran in this run.</p></section>`;
  const failures = c.failures.length
    ? `<div class="alert" role="note"><h3>Could not be undone (${c.failures.length})</h3>` +
      '<p>These are still on the target: remove or disable them by hand.</p>' +
      `<ul>${c.failures.map((f) => `<li>${esc(f)}</li>`).join('')}</ul></div>`
    : '<p class="ok-note">Everything the run created was undone.</p>';
  const undone = Object.entries(c.undone);
  const list = undone.length
    ? `<h3>Undone</h3><ul>${undone.map(([kind, n]) => `<li>${esc(plural(n, kind))}</li>`).join('')}</ul>`
    : '<p class="muted">The run had nothing to undo.</p>';
  return `${head}${failures}${list}</section>`;
}

/** The HTML document of a run report. */
export function formatHtml(report: RunReport): string {
  const failed = report.checks.filter((c) => c.status === 'failed');
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">',
    `<title>svckit conformance: ${report.summary.failed} failed, ${report.summary.passed} passed, ${report.summary.skipped} skipped</title>`,
    `<style>${STYLE}</style></head><body>`,
    header(report, failed.length),
    '<main>',
    failuresSection(failed),
    surfacesSection(report),
    gatesSection(report),
    cleanupSection(report),
    checksSection(report, failed),
    '</main><p id="copy-status" class="sr" aria-live="polite"></p>',
    `<script>${SCRIPT}</script></body></html>`,
    '',
  ].join('\n');
}
