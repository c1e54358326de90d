// The engine's HTML report: one self-contained file (inline style, no script, no external asset) with the
// summary, the coverage matrix per surface and every kept failure with its minimal case and replay command.
import type { EngineJsonReport } from './engine.ts';
import { toJson } from './format.ts';

const html = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;color:#111}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.ok{background:#dfd}.no{background:#fdd}
pre{background:#f4f4f4;padding:8px;overflow:auto;max-height:30em}.fail{border-left:4px solid #c00;padding-left:1em;margin:1em 0}`;

/** The HTML document of a report. */
export function formatEngineHtml(report: EngineJsonReport): string {
  const s = report.summary;
  const parts = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svckit conformance engine</title>',
    `<style>${STYLE}</style></head><body>`,
    '<h1>svckit conformance engine</h1>',
    `<p>Seed ${report.seed}, phases ${html(report.phases.join(', '))}, ${report.maxExamples} fuzz examples per operation, ${report.durationMs} ms.</p>`,
    '<table id="summary"><tr><th>passed</th><th>failed</th><th>skipped</th><th>requests</th><th>score</th></tr>',
    `<tr><td id="passed">${s.passed}</td><td id="failed">${s.failed}</td><td id="skipped">${s.skipped}</td><td id="requests">${s.requests}</td><td id="score">${report.coverage.score}</td></tr></table>`,
    '<h2>Named checks</h2><table><tr><th>check</th><th>surface</th><th>passed</th><th>failed</th><th>skipped</th></tr>',
    ...report.checks.map(
      (c) =>
        `<tr class="${c.failed ? 'no' : 'ok'}"><td>${html(c.id)}</td><td>${html(c.surface)}</td><td>${c.passed}</td><td>${c.failed}</td><td>${c.skipped}</td></tr>`,
    ),
    '</table><h2>Coverage</h2>',
  ];
  for (const [surface, data] of Object.entries(report.surfaces)) {
    const c = data.coverage;
    parts.push(
      `<h3>${html(surface)}</h3><p>operations ${c.operations.covered}/${c.operations.total}, documented responses ${c.responses.covered}/${c.responses.total}, parameters ${c.parameters.covered}/${c.parameters.total}, score ${c.score}</p>`,
    );
    const rows = new Map<string, Map<string, boolean>>();
    const statuses = new Set<string>();
    for (const [key, seen] of Object.entries(data.matrix)) {
      const status = key.slice(key.lastIndexOf(' ') + 1);
      const op = key.slice(0, key.lastIndexOf(' '));
      statuses.add(status);
      if (!rows.has(op)) rows.set(op, new Map());
      rows.get(op)?.set(status, seen);
    }
    const columns = [...statuses].sort();
    parts.push(
      `<table class="matrix"><tr><th>operation</th>${columns.map((x) => `<th>${html(x)}</th>`).join('')}</tr>`,
    );
    for (const [op, cells] of rows)
      parts.push(
        `<tr><td>${html(op)}</td>${columns.map((x) => (cells.has(x) ? `<td class="${cells.get(x) ? 'ok' : 'no'}">${cells.get(x) ? 'seen' : '—'}</td>` : '<td></td>')).join('')}</tr>`,
      );
    parts.push('</table>');
  }
  parts.push('<h2>Failures</h2>');
  const failures = report.checks.flatMap((c) => c.failures);
  if (failures.length === 0) parts.push('<p id="no-failures">No failures.</p>');
  for (const f of failures) {
    parts.push(
      `<div class="fail"><h3>${html(`generated.${f.check}`)} — ${html(f.case.method)} ${html(f.case.operation)}</h3>`,
      `<p>${html(f.message)}</p><p>Case (${f.shrunk ? 'shrunk by fast-check' : 'as generated'}): ${html(f.case.reason)}${'sequence' in f.case && f.case.sequence ? ` (${html(f.case.sequence)})` : ''}</p>`,
      `<pre class="case">${html(toJson({ request: f.request, input: f.case.input }, 2))}</pre>`,
      `<p>Answer: HTTP ${f.response.status}</p><pre>${html(f.response.body.slice(0, 1000))}</pre>`,
      // A chain case is sent again by POSTing its request body to the JSON-RPC endpoint (D-193).
      (f.case.surface as string) === 'chain'
        ? `<p>Send again: POST the request body above to the JSON-RPC endpoint (${html(f.request.url)}).</p></div>`
        : `<p>Replay: <code>svckit replay ${html(f.caseFile)} --base &lt;url&gt;</code></p></div>`,
    );
  }
  parts.push('</body></html>', '');
  return parts.join('\n');
}
