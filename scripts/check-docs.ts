/**
 * The conformance checks page (DESIGN.md house rule 7: "The docs page is generated from the catalogue"):
 * `npx tsx scripts/check-docs.ts --write` writes docs/conformance-checks.md; a test fails when it is stale.
 * It lists every check the harness runs, with its phase and source: the catalogue's behaviour checks, the
 * receiver-side checks (D-171), and the named checks of the generated cases (D-185).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { SURFACE_NAMES } from '../conformance/catalogue.ts';
import { GENERATED_CHECKS } from '../conformance/engine/core/registry.ts';
import { everyCheck } from './spec-quotes.ts';

/** The page's path. */
export const CHECKS_PAGE = new URL('../docs/conformance-checks.md', import.meta.url);

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The page's Markdown, one table per surface, then the named checks of the generated cases. */
export function renderChecksPage(): string {
  const checks = everyCheck().filter((c) => c.origin !== 'generated');
  const surfaces = [...new Set(checks.map((c) => c.surface))];
  const named = GENERATED_CHECKS;
  const lines = [
    '# Conformance checks',
    '',
    'Generated from the catalogue by `npx tsx scripts/check-docs.ts --write`; do not edit.',
    `${checks.length} hand-written checks, and ${named.length} checks generated from the contracts.`,
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
    '## Checks generated from the contracts',
    '',
    'Registered beside the hand-written checks (D-232) and applied to every case of their phases; each reports',
    'one verdict with its case counts per surface. `--only generated.<name>` runs one in its own phases.',
    '',
    '| id | title | phases | severity | source |',
    '|---|---|---|---|---|',
  );
  for (const c of named) {
    const source = 'quote' in c.source ? `spec: "${c.source.quote}"` : c.source.decision;
    lines.push(`| \`${c.id}\` | ${cell(c.title)} | ${c.phases.join(', ')} | ${c.severity} | ${cell(source)} |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write'))
  writeFileSync(CHECKS_PAGE, renderChecksPage());

/** The committed page. */
export const committedChecksPage = () => readFileSync(CHECKS_PAGE, 'utf8');
