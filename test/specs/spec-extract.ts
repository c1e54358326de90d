// The parts of the interface specification the spec tests compare the contracts with, extracted into
// committed data (test/specs/spec-extract.json, D-133): the specification is not part of the kit, so
// the tests read the extract, and spec-extract.test.ts checks it against the specification whenever
// it is beside the clone. Regenerate with `npx tsx test/specs/spec-extract.ts --write`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { repoPath } from '../../src/paths.ts';

/** The specification beside a development checkout (absent from a user's clone). */
export const SPEC_PATH = repoPath('../shared/spec/interface-specification.md');

/** The committed extract. */
export const EXTRACT_URL = new URL('./spec-extract.json', import.meta.url);

/** The sections (by heading) whose tables and field lists coverage.test.ts reads. */
export const SECTION_HEADINGS: readonly string[] = [
  'A. Institutional REST API',
  'Account (A)',
  'C. Chain JSON-RPC',
  'Chain block (C, D)',
  'D. Explorer REST API',
  'E. Wallet session API',
  'Errors',
  'Evidence document (F)',
  'Explorer address balance (D)',
  'Explorer chain statistics (D)',
  'Explorer transaction (D)',
  'Payment event payload (B)',
  'Statement page (A)',
  'Statement transaction (A)',
  'Transfer (A)',
  'Transfer creation response (A)',
  'Transfer request (A, POST /transfers)',
  'Validator (D)',
  'Validator list (D, GET /api/validators)',
  'Wallet session objects (E)',
  'Webhook events (B)',
];

/** What the tests need from the specification. */
export interface SpecExtract {
  /** The spec's sentences that say "not shown", whitespace-normalised, in order. */
  notShown: string[];
  /** The lines under each heading in SECTION_HEADINGS, up to the next heading of any level. */
  sections: Record<string, string[]>;
}

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Extracts the data from the specification's markdown. */
export function extractSpec(markdown: string): SpecExtract {
  const lines = markdown.split('\n');
  const sections: Record<string, string[]> = {};
  for (const heading of SECTION_HEADINGS) {
    const start = lines.findIndex((l) => /^#{2,4} /.test(l) && l.replace(/^#+ /, '') === heading);
    if (start < 0) throw new Error(`no section "${heading}" in the interface specification`);
    const end = lines.findIndex((l, i) => i > start && /^#{2,4} /.test(l));
    sections[heading] = lines.slice(start + 1, end < 0 ? undefined : end);
  }
  // A sentence ends at ". " or the end of a line.
  const notShown = lines
    .flatMap((line) => line.split(/(?<=\.)\s+/))
    .filter((s) => s.includes('not shown'))
    .map(normalise);
  return { notShown, sections };
}

/** The committed extract. */
export function readSpecExtract(): SpecExtract {
  return JSON.parse(readFileSync(EXTRACT_URL, 'utf8')) as SpecExtract;
}

/** The extract file's text. */
export function specExtractFile(extract: SpecExtract): string {
  return `${JSON.stringify(extract, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  writeFileSync(EXTRACT_URL, specExtractFile(extractSpec(readFileSync(SPEC_PATH, 'utf8'))));
  console.log(`wrote ${fileURLToPath(EXTRACT_URL)}`);
}
