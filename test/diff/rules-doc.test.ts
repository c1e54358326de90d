// docs/diff-rules.md names every rule of svckit diff with the level the code gives it (D-247), and no rule the
// code does not have.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleCatalogue, SCHEMA_CONTEXTS } from '../../conformance/diff/index.ts';
import { SCHEMA_RULES } from '../../conformance/diff/schema.ts';
import { REPO_ROOT } from '../../src/paths.ts';

const page = readFileSync(path.join(REPO_ROOT, 'docs/diff-rules.md'), 'utf8');
/** Each table row of the page: its first cell's id and the cells after it. */
const rows = new Map(
  [...page.matchAll(/^\| `([a-z0-9_.]+)` \| ([^|]+) \| ([^|]+) \|/gm)].map((m) => [
    m[1] as string,
    [(m[2] as string).trim(), (m[3] as string).trim()],
  ]),
);

describe('docs/diff-rules.md', () => {
  it('gives each format rule its level', () => {
    const catalogue = ruleCatalogue();
    const prefixes = Object.keys(SCHEMA_CONTEXTS);
    const formatRules = [...catalogue].filter(([id]) => !prefixes.some((prefix) => id.startsWith(`${prefix}.`)));
    expect(formatRules.length).toBeGreaterThan(50);
    for (const [id, level] of formatRules) expect(rows.get(id)?.[0], id).toBe(level);
  });

  it('gives each schema rule its level for sent and for parsed data', () => {
    for (const [suffix, levels] of Object.entries(SCHEMA_RULES)) {
      const row = rows.get(suffix);
      expect(row?.[0], suffix).toBe(levels.sent);
      expect(row?.[1]?.startsWith(levels.parsed), suffix).toBe(true);
    }
  });

  it('names no rule the code does not have', () => {
    const catalogue = ruleCatalogue();
    for (const id of rows.keys()) expect(catalogue.has(id) || id in SCHEMA_RULES, id).toBe(true);
  });
});
