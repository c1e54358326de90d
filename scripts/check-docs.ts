/**
 * The conformance checks page (DESIGN.md house rule 7: "The docs page is generated from the catalogue"):
 * `npx tsx scripts/check-docs.ts --write` writes docs/conformance-checks.md; a test fails when it is stale.
 * It lists every check the harness runs, with its phase and source: the catalogue's behaviour checks, the
 * receiver-side checks (D-171), and the named checks of the generated cases (D-185).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { SURFACE_NAMES } from '../conformance/catalogue.ts';
import { NAMED_CHECK_SOURCES } from '../conformance/engine/checks.ts';
import { everyCheck } from './spec-quotes.ts';

/** The page's path. */
export const CHECKS_PAGE = new URL('../docs/conformance-checks.md', import.meta.url);

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The page's Markdown, one table per surface, then the named checks of the generated cases. */
export function renderChecksPage(): string {
  const checks = everyCheck();
  const surfaces = [...new Set(checks.map((c) => c.surface))];
  const named = Object.entries(NAMED_CHECK_SOURCES);
  const lines = [
    '# Conformance checks',
    '',
    'Generated from the catalogue by `npx tsx scripts/check-docs.ts --write`; do not edit.',
    `${checks.length} checks, and ${named.length} named checks applied to every generated case.`,
    'MUST checks quote the interface specification; SHOULD checks enforce a decision of specs/DECISIONS.md.',
    'A check whose needs the target lacks is reported as skipped, never as passed. Phases: `behaviour` is a',
    "hand-written check of the catalogue; `receiver` a check of an institution's own webhook receiver",
    '(`--webhook-receiver`, D-171); the generated phases are `examples`, `coverage`, `fuzz` and `stateful`',
    '(docs/conformance-engine.md). Which specification lines each check traces is in docs/traceability.md.',
  ];
  for (const surface of surfaces) {
    lines.push(
      '',
      `## Surface ${surface}: ${SURFACE_NAMES[surface]}`,
      '',
      '| id | title | phase | severity | source | needs |',
      '|---|---|---|---|---|---|',
    );
    for (const c of checks.filter((x) => x.surface === surface)) {
      const source = 'quote' in c.source ? `spec: "${c.source.quote}"` : c.source.decision;
      const phase = c.id.startsWith('webhooks.receiver.') ? 'receiver' : 'behaviour';
      lines.push(
        `| \`${c.id}\` | ${cell(c.title)} | ${phase} | ${c.severity} | ${cell(source)} | ${c.needs.join(', ') || 'a receiver URL'} |`,
      );
    }
  }
  lines.push(
    '',
    '## Named checks of the generated cases',
    '',
    'Applied to every case generated from the contracts, in every phase that produces such a case; ids are',
    '`generated.<name>`, reported per surface.',
    '',
    '| id | phases | source |',
    '|---|---|---|',
  );
  for (const [name, { phases, source }] of named)
    lines.push(`| \`generated.${name}\` | ${phases.join(', ')} | ${cell(source)} |`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write'))
  writeFileSync(CHECKS_PAGE, renderChecksPage());

/** The committed page. */
export const committedChecksPage = () => readFileSync(CHECKS_PAGE, 'utf8');
