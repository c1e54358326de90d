/**
 * Traceability from the interface specification to the checks (D-133: the specification's lines are
 * committed data, conformance/spec-lines.json, since nothing at run time reads the specification). Each
 * substantive line has a stable reference, `<h2 slug>/<h3 slug>#<8 hex of SHA-256 of its text>`, which
 * survives edits elsewhere in the document. A check traces the lines its quote comes from, plus those
 * conformance/traceability.json names for it; a line no check traces is listed there with a reason.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Check, normaliseWhitespace } from './catalogue.ts';

/** One substantive line of the specification. */
export type SpecLine = {
  /** Stable reference: section path and a short hash of the text. */
  ref: string;
  /** The `##` and `###` headings above it. */
  section: string;
  /** The line, whitespace-normalised. */
  text: string;
};

/** Why no check traces a line. */
export type UncoveredReason = 'untestable' | 'decision' | 'not-yet';

/** conformance/traceability.json. */
export type TraceabilityMap = {
  /** Lines each check traces beyond those its quote comes from. */
  traces: Record<string, string[]>;
  /** Lines no check traces, each with a reason and a note. */
  uncovered: Record<string, { reason: UncoveredReason; note: string }>;
};

/** conformance/spec-lines.json: the substantive lines, in document order. */
export const SPEC_LINES_URL = new URL('./spec-lines.json', import.meta.url);

/** conformance/traceability.json. */
export const TRACEABILITY_URL = new URL('./traceability.json', import.meta.url);

const slug = (heading: string) =>
  heading
    .replace(/^#+\s*/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The substantive lines of a specification text: not blank, not a heading, not a table rule, not a
 * "not shown" statement. References repeated within one section get `-2`, `-3` appended.
 */
export function specLines(text: string): SpecLine[] {
  let h2 = '';
  let h3 = '';
  const out: SpecLine[] = [];
  const seen = new Map<string, number>();
  for (const raw of text.split('\n')) {
    if (raw.startsWith('## ')) [h2, h3] = [raw.slice(3).trim(), ''];
    else if (raw.startsWith('### ')) h3 = raw.slice(4).trim();
    if (raw.startsWith('#') || !raw.trim() || raw.includes('not shown') || /^\|[-| :]+\|$/.test(raw.trim())) continue;
    const line = normaliseWhitespace(raw);
    const base = `${[h2, h3].filter(Boolean).map(slug).join('/') || 'preamble'}#${createHash('sha256').update(line).digest('hex').slice(0, 8)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.push({ ref: n === 1 ? base : `${base}-${n}`, section: [h2, h3].filter(Boolean).join(' › '), text: line });
  }
  return out;
}

/** The committed lines. */
export function readSpecLines(): SpecLine[] {
  return (JSON.parse(readFileSync(SPEC_LINES_URL, 'utf8')) as { lines: SpecLine[] }).lines;
}

/** The committed map. */
export function readTraceabilityMap(): TraceabilityMap {
  return JSON.parse(readFileSync(TRACEABILITY_URL, 'utf8')) as TraceabilityMap;
}

/** The references a check traces: lines holding its quote, then the map's, without repeats. */
export function tracedBy(check: Pick<Check, 'id' | 'source'>, lines: readonly SpecLine[], map: TraceabilityMap) {
  const quoted =
    'quote' in check.source
      ? lines.filter((l) => l.text.includes(normaliseWhitespace((check.source as { quote: string }).quote)))
      : [];
  return [...new Set([...quoted.map((l) => l.ref), ...(map.traces[check.id] ?? [])])];
}

/** Line reference → ids of the checks tracing it. */
export function matrix(
  checks: readonly Pick<Check, 'id' | 'source'>[],
  lines: readonly SpecLine[],
  map: TraceabilityMap,
) {
  const byLine = new Map<string, string[]>(lines.map((l) => [l.ref, []]));
  for (const check of checks) for (const ref of tracedBy(check, lines, map)) byLine.get(ref)?.push(check.id);
  return byLine;
}
