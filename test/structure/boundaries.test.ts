// The layers of the repository (README "Layout"): cli/ sits on top of conformance/ and scripts/, which sit on
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
