/**
 * The traceability matrix: from each substantive line of the interface specification to the checks that
 * hold it, and back. `trace.json` names, per line id, the catalogue checks and the contract operations whose
 * generated cases hold it (their responses are validated against the schema that carries the line's fields),
 * or why nothing does. A table's header row names the columns its rows fill, so it is traced by the checks
 * of those rows. Rules and figures are documented in docs/traceability.md.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../../src/paths.ts';
import type { SpecLine } from './spec-lines.ts';
import { SPEC_LINES_URL } from './spec-lines.ts';

/** Why a line is held by no check. */
export type UncoveredReason =
  | 'structure' // a lead-in or a scope sentence: it carries no requirement of its own
  | 'untestable' // no request to a deployment can show it; where it is tested instead is named
  | 'decision' // a decision settles it and no check can observe more
  | 'not-covered'; // testable, and not yet held by any check

/** One entry of trace.json. */
export type TraceEntry = { checks: string[]; generated?: string[] } | { reason: UncoveredReason; note: string };

/** One row of the matrix. */
export interface MatrixRow {
  /** The specification line. */
  line: SpecLine;
  /** Catalogue checks that hold it. */
  checks: string[];
  /** OpenAPI operationIds whose generated cases hold it. */
  generated: string[];
  /** How the row is traced: by its own entry, or (a table header) through the rows of its table. */
  via: 'entry' | 'table';
  /** Why nothing holds it, when nothing does. */
  reason?: UncoveredReason;
  /** The reason's detail. */
  note?: string;
}

/** The matrix and its figures. */
export interface Matrix {
  /** One row per substantive line, in document order. */
  rows: MatrixRow[];
  /** Lines held by at least one check or generated case. */
  covered: number;
  /** Substantive lines. */
  total: number;
  /** For each check id, the ids of the lines it traces. */
  linesByCheck: Map<string, string[]>;
}

/** Where the hand-kept map lives. */
export const TRACE_URL = pathToFileURL(repoPath('conformance/traceability/trace.json'));

/** The committed specification lines. */
export function loadSpecLines(): SpecLine[] {
  return (JSON.parse(readFileSync(SPEC_LINES_URL, 'utf8')) as { lines: SpecLine[] }).lines;
}

/** The committed map. */
export function loadTrace(): Record<string, TraceEntry> {
  return JSON.parse(readFileSync(TRACE_URL, 'utf8')) as Record<string, TraceEntry>;
}

/** Builds the matrix; `problems` lists every entry that names an unknown line, check or operation. */
export function buildMatrix(
  lines: SpecLine[],
  trace: Record<string, TraceEntry>,
  known: { checks: ReadonlySet<string>; operations: ReadonlySet<string> },
): { matrix: Matrix; problems: string[] } {
  const problems: string[] = [];
  const ids = new Set(lines.map((l) => l.id));
  for (const id of Object.keys(trace)) if (!ids.has(id)) problems.push(`trace.json names unknown line ${id}`);
  const rows: MatrixRow[] = lines.map((line) => {
    const entry = trace[line.id];
    if (line.kind === 'table-header') {
      if (entry) problems.push(`${line.id} (line ${line.line}) is a table header: it is traced through its rows`);
      return { line, checks: [], generated: [], via: 'table' };
    }
    if (!entry) {
      problems.push(`${line.id} (line ${line.line}) has no entry in trace.json`);
      return { line, checks: [], generated: [], via: 'entry', reason: 'not-covered', note: 'no entry' };
    }
    if ('reason' in entry)
      return { line, checks: [], generated: [], via: 'entry', reason: entry.reason, note: entry.note };
    for (const c of entry.checks) if (!known.checks.has(c)) problems.push(`${line.id}: unknown check ${c}`);
    for (const o of entry.generated ?? [])
      if (!known.operations.has(o)) problems.push(`${line.id}: unknown operation ${o}`);
    return { line, checks: [...entry.checks], generated: [...(entry.generated ?? [])], via: 'entry' };
  });
  // A header row takes the union of the rows below it, up to the next header or running text.
  rows.forEach((row, i) => {
    if (row.via !== 'table') return;
    for (let j = i + 1; j < rows.length; j++) {
      const below = rows[j] as MatrixRow;
      const above = rows[j - 1] as MatrixRow;
      // The first row follows the header's rule line; each later row follows the row before it.
      if (below.line.kind !== 'table-row' || below.line.line !== above.line.line + (j - 1 === i ? 2 : 1)) break;
      row.checks = [...new Set([...row.checks, ...below.checks])];
      row.generated = [...new Set([...row.generated, ...below.generated])];
    }
    if (row.checks.length === 0 && row.generated.length === 0) {
      row.reason = 'not-covered';
      row.note = 'no row of this table is held by a check';
    }
  });
  const linesByCheck = new Map<string, string[]>();
  for (const row of rows)
    if (row.via === 'entry')
      for (const c of row.checks) linesByCheck.set(c, [...(linesByCheck.get(c) ?? []), row.line.id]);
  const covered = rows.filter((r) => r.checks.length + r.generated.length > 0).length;
  return { matrix: { rows, covered, total: rows.length, linesByCheck }, problems };
}
