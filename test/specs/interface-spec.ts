// Reads the interface specification's tables and field lists, so tests can compare the contracts
// with the specification itself rather than with a copy typed by hand. The sections come from the
// committed extract (spec-extract.json, D-133), checked against the specification when it is present.
import { readSpecExtract } from './spec-extract.ts';

const sections = readSpecExtract().sections;

/** The lines of the section under `heading` (up to the next heading of any level). */
export function section(heading: string): string[] {
  const lines = sections[heading];
  if (!lines)
    throw new Error(`no section "${heading}" in the spec extract (add it to SECTION_HEADINGS in spec-extract.ts)`);
  return lines;
}

/** The first markdown table of a section, as rows keyed by the header cells (the n-th table with `index`). */
export function table(heading: string, index = 0): Record<string, string>[] {
  const lines = section(heading);
  const tables: string[][] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      current = undefined;
    } else if (current) {
      current.push(line);
    } else {
      current = [line];
      tables.push(current);
    }
  }
  const rows = tables[index];
  if (!rows) throw new Error(`no table ${index} in section "${heading}"`);
  const cells = (row: string) =>
    row
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  const header = cells(rows[0]!);
  return rows.slice(2).map((row) => Object.fromEntries(cells(row).map((c, i) => [header[i]!, c])));
}

/** Splits on commas that are not inside (), {} or []. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if ('({['.includes(ch)) depth++;
    if (')}]'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

/** A field named by the specification, with its JSON type when the specification gives one. */
export type SpecField = { name: string; type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' };

/** Maps the specification's type words to a JSON Schema type. */
export function jsonType(words: string): SpecField['type'] {
  const w = words.toLowerCase();
  for (const t of ['integer', 'number', 'boolean', 'array', 'object', 'string'] as const) if (w.startsWith(t)) return t;
  if (w.includes('string')) return 'string';
  return undefined;
}

/** Parses a prose field list such as `Fields: txRef (string, format …), txHash (string), …`. */
export function proseFields(line: string): SpecField[] {
  const list = line
    .slice(line.indexOf(':') + 1)
    .trim()
    .replace(/\.$/, '');
  return splitTopLevel(list).map((item) => {
    const match = /^(\$?[A-Za-z]+)\s*(?:\(([^,;)]*)|$)/.exec(item.trim());
    if (!match) throw new Error(`cannot read a field from "${item}"`);
    const type = match[2] ? jsonType(match[2]) : undefined;
    return type ? { name: match[1]!, type } : { name: match[1]! };
  });
}

/** The fields of a `| Field | Type | …` table. */
export function tableFields(heading: string, index = 0): (SpecField & { required?: boolean })[] {
  return table(heading, index).map((row) => {
    const type = jsonType(row.Type ?? '');
    const field: SpecField & { required?: boolean } = { name: row.Field!.replace(/`/g, '') };
    if (type) field.type = type;
    if (row.Required) field.required = row.Required.startsWith('yes');
    return field;
  });
}

/** The line of a section that starts with `prefix`. */
export function lineStarting(heading: string, prefix: string): string {
  const line = section(heading).find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`no line "${prefix}…" in section "${heading}"`);
  return line;
}
