// specs/DECISIONS.md: one numbered entry per "not shown" statement and per
// ambiguity, each with question, choice, why and the spec elements that carry it.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { carriedByLine, decisionCarriers, readDecisions } from '../../scripts/decisions.ts';
import { readSpecExtract } from './spec-extract.ts';

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();
const entries = readDecisions();

/** The spec's sentences that say "not shown", from the committed extract (spec-extract.test.ts checks it against the spec). */
function notShownStatements(): string[] {
  return readSpecExtract().notShown;
}

describe('specs/DECISIONS.md', () => {
  it('numbers its entries D-001, D-002, … without gaps', () => {
    expect(entries.map((e) => e.id)).toEqual(entries.map((_, i) => `D-${String(i + 1).padStart(3, '0')}`));
  });

  it('gives every entry a question, a choice, a reason and its carriers', () => {
    for (const entry of entries) {
      for (const part of ['Question', 'Choice', 'Why', 'Carried by']) {
        expect(entry.body, `${entry.id} lacks "${part}"`).toContain(`- **${part}:**`);
      }
    }
  });

  it('answers each of the 28 "not shown" statements, quoting it, in D-001 to D-028', () => {
    const statements = notShownStatements();
    expect(statements).toHaveLength(28);
    const firstPart = entries.slice(0, 28).map((e) => normalise(e.body));
    statements.forEach((statement, i) => {
      expect(firstPart[i], `D-${String(i + 1).padStart(3, '0')} should quote: ${statement}`).toContain(statement);
    });
  });

  it('covers the ambiguities the foundation issue names', () => {
    const titles = entries.map((e) => `${e.title} ${e.body}`).join('\n');
    for (const topic of [
      '/api/v1',
      'Register request',
      'svcId is derived',
      'memo envelope',
      'rounding',
      'payment txRef format',
      'ecdsaSig scheme',
      'reference field of list responses',
      'ceil(2n/3)',
    ]) {
      expect(titles, topic).toContain(topic);
    }
  });

  it('agrees with the specs: every x-decision names an entry, and every entry lists exactly its carriers', () => {
    const carriers = decisionCarriers();
    const ids = new Set(entries.map((e) => e.id));
    expect(
      [...carriers.keys()].filter((id) => !ids.has(id)),
      'x-decision values with no entry',
    ).toEqual([]);
    for (const entry of entries) {
      const line = entry.body.split('\n').find((l) => l.startsWith('- **Carried by:**'));
      const expected = carriedByLine(entry.id, carriers);
      if (expected) expect(line, `${entry.id}: run \`npx tsx scripts/decisions.ts --write\``).toBe(expected);
      // A decision no spec element carries must say where the code carries it.
      else {
        expect(line, `${entry.id} is carried by no spec element and names no code`).toMatch(
          /^- \*\*Carried by:\*\* code only: \S.+/,
        );
        for (const file of [...line!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)) {
          expect(
            existsSync(new URL(`../../${file}`, import.meta.url)),
            `${entry.id} names ${file}, which does not exist`,
          ).toBe(true);
        }
      }
    }
  });
});
