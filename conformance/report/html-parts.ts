// The HTML report's small pieces: escaping, preformatted exchanges, copyable commands, coverage bars and the
// figures' wording. Every report text may come from the deployment under test, so each one passes through
// `esc` before it reaches the page; numbers are the only values written unescaped.
import { toJson } from './format.ts';
import type { Counts, Ratio, ReportedRequest, ReportedResponse } from './model.ts';

/** Text made safe for HTML element content and quoted attribute values. */
export const esc = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** A block of preformatted text, wrapping inside its own box; `kind` names what it holds (`request`...). */
export const pre = (text: string, kind: string): string => `<pre class="${esc(kind)}">${esc(text)}</pre>`;

/** A value as indented JSON (bigint as decimal text). */
export const json = (value: unknown): string => toJson(value, 2);

/** A body as sent or received: indented when it is JSON, else as it is. */
export function bodyText(body: string): string {
  const start = body.trimStart()[0];
  if (start !== '{' && start !== '[') return body;
  try {
    return json(JSON.parse(body));
  } catch {
    return body;
  }
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers).map(([name, value]) => `${name}: ${value}`);

/** A request as a reader would type it: method and URL, headers, a blank line and the body. */
export function requestText(request: ReportedRequest): string {
  const lines = [`${request.method} ${request.url}`, ...headerLines(request.headers)];
  if (request.body !== undefined) lines.push('', bodyText(request.body));
  return lines.join('\n');
}

/** A response: status line, headers, a blank line and the body (cut at 2,000 characters by the model). */
export function responseText(response: ReportedResponse): string {
  return [`HTTP ${response.status}`, ...headerLines(response.headers), '', bodyText(response.body)].join('\n');
}

/** A check id that breaks after its dots on a narrow screen, not inside a word. */
export const checkId = (id: string): string => esc(id).replace(/\./g, '.<wbr>');

/** A command whose short flags (`--only`) never break at their hyphens; the text copied is unchanged. */
const commandText = (text: string) =>
  text
    .split(/(\s+)/)
    .map((part) => (/^-{1,2}[\w-]{1,30}$/.test(part) ? `<span class="nb">${esc(part)}</span>` : esc(part)))
    .join('');

/** A shell command in a copyable box; `id` is unique in the page, `what` names it for the copy button. */
export function command(text: string, id: string, what: string): string {
  return (
    `<div class="cmd"><code id="${esc(id)}">${commandText(text)}</code>` +
    `<button type="button" class="copy" data-copy="${esc(id)}" aria-label="Copy ${esc(what)}">Copy</button></div>`
  );
}

/** Whole per cent, rounded down so that 100 % means every item was covered. */
export const percent = (ratio: Ratio): number =>
  ratio.total === 0 ? 0 : Math.floor((ratio.covered * 100) / ratio.total);

/** Coverage as text (read by everyone) above a bar (decoration, hidden from assistive technology). */
export function bar(ratio: Ratio | undefined): string {
  if (!ratio) return '<span class="muted">no generated cases</span>';
  if (ratio.total === 0) return '<span class="muted">none to cover</span>';
  const p = percent(ratio);
  return (
    `<span class="num">${ratio.covered} / ${ratio.total} (${p} %)</span>` +
    `<span class="bar" aria-hidden="true"><span class="w${p}"></span></span>`
  );
}

/** `12 passed, 1 failed, 2 skipped`, each count in its own colour and always all three. */
export const counts = (c: Counts): string =>
  `<span class="n passed">${c.passed} passed</span>, <span class="n failed">${c.failed} failed</span>, ` +
  `<span class="n skipped">${c.skipped} skipped</span>`;

/** A duration for a reader: `840 ms`, `12.4 s`, `3 min 05 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** A verdict badge. */
export const badge = (status: string): string => `<span class="badge ${esc(status)}">${esc(status)}</span>`;

/** `1 check`, `3 checks`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
