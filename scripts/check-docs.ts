/**
 * The conformance checks page (DESIGN.md house rule 7: "The docs page is generated from the catalogue"):
 * `npx tsx scripts/check-docs.ts --write` writes docs/conformance-checks.md; a test fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { SURFACE_NAMES } from '../conformance/catalogue.ts';
import { buildCatalogue } from '../conformance/checks/index.ts';

/** The page's path. */
export const CHECKS_PAGE = new URL('../docs/conformance-checks.md', import.meta.url);

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The page's Markdown, one table per surface, from the catalogue. */
export function renderChecksPage(): string {
  const checks = buildCatalogue().list();
  const surfaces = [...new Set(checks.map((c) => c.surface))];
  const lines = [
    '# Conformance checks',
    '',
    'Generated from the catalogue by `npx tsx scripts/check-docs.ts --write`; do not edit.',
    `${checks.length} checks. MUST checks quote the interface specification; SHOULD checks enforce a decision of specs/DECISIONS.md.`,
    'A check whose needs the target lacks is reported as skipped, never as passed.',
  ];
  for (const surface of surfaces) {
    lines.push(
      '',
      `## Surface ${surface}: ${SURFACE_NAMES[surface]}`,
      '',
      '| id | title | severity | source | needs |',
      '|---|---|---|---|---|',
    );
    for (const c of checks.filter((x) => x.surface === surface)) {
      const source = 'quote' in c.source ? `spec: "${c.source.quote}"` : c.source.decision;
      lines.push(`| \`${c.id}\` | ${cell(c.title)} | ${c.severity} | ${cell(source)} | ${c.needs.join(', ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write'))
  writeFileSync(CHECKS_PAGE, renderChecksPage());

/** The committed page. */
export const committedChecksPage = () => readFileSync(CHECKS_PAGE, 'utf8');
