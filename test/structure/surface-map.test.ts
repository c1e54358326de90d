// README "Where each surface lives" (D-165): every path the map names exists, and every surface's one name is
// the name of its contract, generated folder, check folder and test folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';

/** The map's rows, keyed by column heading; the header and rule rows left out. */
function mapRows(readme: string): Record<string, string>[] {
  const section = readme.split('## Where each surface lives')[1]?.split('\n## ')[0] ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const heading = cells(lines[0] ?? '');
  return lines.slice(2).map((line) => Object.fromEntries(cells(line).map((cell, i) => [heading[i], cell])));
}

/** The backticked repository paths of a cell (a path starts with a top-level folder and has a slash). */
const paths = (cell: string | undefined) =>
  [...(cell ?? '').matchAll(/`([^`]+)`/g)]
    .map((m) => m[1]!)
    .filter((p) => /^[a-z]+\/|^[a-z]+\.[a-z]/.test(p) && p.includes('/'));

const rows = mapRows(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const names = rows.map((r) => r.Surface!.split(' ').at(-1)!);

describe('the README surface map', () => {
  it('has the six surfaces and the admin API, with every column', () => {
    expect(names).toEqual(['institutional', 'webhooks', 'chain', 'explorer', 'wallet', 'evidence', 'admin']);
    for (const row of rows)
      expect(Object.keys(row)).toEqual([
        'Surface',
        'Contract',
        'Generated',
        'Routes',
        'Logic',
        'Store',
        'Domain',
        'Checks',
        'Check ids',
        'Tests',
      ]);
  });

  it('names only paths that exist', () => {
    const named = rows.flatMap((row) => Object.values(row).flatMap(paths));
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((p) => !existsSync(join(REPO_ROOT, p)))).toEqual([]);
  });

  it('uses each surface name for its contract, generated folder, checks, ids and tests', () => {
    for (const [i, row] of rows.entries()) {
      const name = names[i]!;
      if (name === 'admin') continue;
      expect(paths(row.Contract)[0], name).toMatch(
        new RegExp(`^specs/${name}\\.(openapi\\.yaml|asyncapi\\.yaml|openrpc\\.json|schema\\.json)$`),
      );
      expect(paths(row.Generated)[0], name).toBe(`generated/${name}/`);
      expect(paths(row.Checks)[0], name).toBe(`conformance/checks/${name}/`);
      expect(paths(row.Tests)[0], name).toBe(`test/${name}/`);
      expect(row['Check ids'], name).toBe(`\`${name}.*\``);
    }
  });
});
