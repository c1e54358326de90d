/**
 * The interface specification's substantive lines: every non-blank line that is not a heading, not a table
 * rule and not a "not shown" statement (those state that the specification is silent). Each line has a stable
 * id made of its section and a hash of its normalised text, so that an edit elsewhere in the document leaves
 * it unchanged. The list is committed (conformance/traceability/spec-lines.json) because nothing at run time
 * reads the specification itself (D-133).
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../../src/paths.ts';
import { normaliseWhitespace } from '../catalogue.ts';

/** One substantive line of the specification. */
export interface SpecLine {
  /** Stable id: `<section slug>/<first 8 hex of SHA-256 of the normalised text>`. */
  id: string;
  /** 1-based line number in the specification when the list was made (for reading only). */
  line: number;
  /** The heading path, e.g. "Authentication › A. Institutional REST API: ...". */
  section: string;
  /** The line's text, whitespace-normalised. */
  text: string;
  /** A table's header row (it names the columns), a table row, or running text. */
  kind: 'table-header' | 'table-row' | 'text';
}

/** Where the committed list lives. */
export const SPEC_LINES_URL = pathToFileURL(repoPath('conformance/traceability/spec-lines.json'));

/** A heading's slug: lower case, words joined with hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Whether a line carries a requirement (see the module comment). */
export function isSubstantive(line: string): boolean {
  const text = line.trim();
  if (!text || text.startsWith('#')) return false;
  if (/^\|?\s*:?-{3,}/.test(text)) return false;
  return !/not shown/i.test(text);
}

/** The substantive lines of the specification text `markdown`. */
export function specLines(markdown: string): SpecLine[] {
  const headings: string[] = [];
  const out: SpecLine[] = [];
  const rows = markdown.split('\n');
  rows.forEach((raw, index) => {
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw.trim());
    if (heading) {
      const level = (heading[1] ?? '#').length;
      headings.length = Math.max(0, level - 1);
      headings[level - 1] = heading[2] ?? '';
      return;
    }
    if (!isSubstantive(raw)) return;
    const text = normaliseWhitespace(raw);
    const sections = headings.filter(Boolean).slice(1);
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
    const isRow = text.startsWith('|');
    const nextIsRule = /^\|?\s*:?-{3,}/.test((rows[index + 1] ?? '').trim());
    out.push({
      id: `${slug(sections.at(-1) ?? 'preamble')}/${hash}`,
      line: index + 1,
      section: sections.join(' › ') || 'Preamble',
      text,
      kind: isRow ? (nextIsRule ? 'table-header' : 'table-row') : 'text',
    });
  });
  return out;
}
