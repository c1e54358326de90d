// The layers of the repository, and no import cycle in conformance/ (README "Layout"): cli/ sits on top of conformance/ and scripts/, which sit on
// src/; src/ (the reference server, the domain and the integrator helpers) never imports anything above it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;

/** Every .ts/.js file below `dir` (relative to the repository). */
function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js|mjs)$/.test(f))
    .map((f) => join(dir, f));
}

/** The top-level folders a file's relative imports reach, with the specifier. */
function reachedFolders(file: string, text: string): { folder: string; specifier: string }[] {
  const out: { folder: string; specifier: string }[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const target = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), match[1]!));
    out.push({ folder: target.split(/[\\/]/)[0]!, specifier: match[1]! });
  }
  return out;
}

describe('layers', () => {
  it('nothing under src/ imports cli/, conformance/, scripts/, test/ or mocks/', () => {
    const files = sources('src');
    expect(files.length).toBeGreaterThan(100);
    const above = new Set(['cli', 'conformance', 'scripts', 'test', 'mocks']);
    const offending = files.flatMap((file) =>
      reachedFolders(file, readFileSync(join(REPO_ROOT, file), 'utf8'))
        .filter((r) => above.has(r.folder))
        .map((r) => `${file} imports ${r.specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('nothing under conformance/ or scripts/ imports cli/', () => {
    const offending = [...sources('conformance'), ...sources('scripts')].flatMap((file) =>
      reachedFolders(file, readFileSync(join(REPO_ROOT, file), 'utf8'))
        .filter((r) => r.folder === 'cli')
        .map((r) => `${file} imports ${r.specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('the scan sees an import that crosses a layer', () => {
    expect(reachedFolders('src/server/x.ts', "import { a } from '../../conformance/runner.ts';")).toEqual([
      { folder: 'conformance', specifier: '../../conformance/runner.ts' },
    ]);
    expect(reachedFolders('src/server/x.ts', "const m = await import('../../cli/main.ts');")).toEqual([
      { folder: 'cli', specifier: '../../cli/main.ts' },
    ]);
    expect(reachedFolders('src/server/x.ts', "import type { B } from '../ledger/b.ts';")).toEqual([
      { folder: 'src', specifier: '../ledger/b.ts' },
    ]);
  });
});

/** The relative imports of every .ts file under conformance/, static, dynamic and type-only alike. */
function conformanceGraph(): Map<string, string[]> {
  const files = sources('conformance').filter((f) => f.endsWith('.ts'));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIER)) {
      const resolved = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), match[1]!));
      const target = resolved.endsWith('.ts') ? resolved : `${resolved}.ts`;
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The import cycles of `graph`: its strongly connected components of more than one file, or a file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('import cycles', () => {
  it('no import cycle anywhere in conformance/ (static, dynamic and type-only imports alike)', () => {
    const graph = conformanceGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('nothing under conformance/ imports scripts/ (scripts/ imports conformance/)', () => {
    const offending = sources('conformance').flatMap((file) =>
      reachedFolders(file, readFileSync(join(REPO_ROOT, file), 'utf8'))
        .filter((r) => r.folder === 'scripts')
        .map((r) => `${file} imports ${r.specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('the cycle finder sees a cycle through a dynamic import, and none in a chain', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
    expect(reachedFolders('conformance/x.ts', "const m = await import('./engine/core/run.ts');")).toEqual([
      { folder: 'conformance', specifier: './engine/core/run.ts' },
    ]);
  });
});
