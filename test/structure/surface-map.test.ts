// README "Where each surface lives" (D-165): every path the map names exists, and every surface's one name is
// the name of its contract, generated folder, check folder and test folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';

/** The map's rows: the cells of each table row under the heading, header and rule left out. */
function mapRows(readme: string): string[][] {
  const section = readme.split('## Where each surface lives')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---') && !line.includes('| Name |'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The backticked paths of a cell, without glob patterns or ids. */
const paths = (cell: string) =>
  [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/:$/, '')).filter((p) => !p.includes('*'));

const rows = mapRows(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const BASES = ['', '', 'specs', '', 'src/server', '', 'conformance/checks', '', 'test'];

describe('the README surface map', () => {
  it('has the six surfaces and the admin API', () => {
    expect(rows.map((r) => r[1])).toEqual([
      'institutional',
      'webhooks',
      'chain',
      'explorer',
      'wallet',
      'evidence',
      'admin',
    ]);
  });

  it('names only paths that exist', () => {
    const missing: string[] = [];
    for (const row of rows) {
      for (const [column, base] of BASES.entries()) {
        if (column === 7) continue; // check id patterns
        for (const p of paths(row[column] ?? '')) {
          // A file named in a plugin cell lives in the plugin folder named first in that cell.
          const plugin = column === 4 ? paths(row[column]!)[0] : undefined;
          const candidates = [
            join(REPO_ROOT, base, p),
            ...(plugin && plugin !== p ? [join(REPO_ROOT, base, plugin, p)] : []),
          ];
          if (!candidates.some((c) => existsSync(c))) missing.push(`${row[1]}: ${base}/${p}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('uses each surface name for its contract, generated folder, checks and tests', () => {
    for (const row of rows.filter((r) => r[1] !== 'admin')) {
      const name = row[1]!;
      expect(paths(row[2]!)[0], name).toMatch(
        new RegExp(`^${name}\\.(openapi\\.yaml|asyncapi\\.yaml|openrpc\\.json|schema\\.json)$`),
      );
      expect(paths(row[3]!)[0], name).toBe(`generated/${name}/`);
      expect(paths(row[6]!)[0], name).toBe(`${name}/`);
      expect(paths(row[8]!)[0], name).toBe(`${name}/`);
      expect(row[7], name).toBe(`\`${name}.*\``);
    }
  });
});
