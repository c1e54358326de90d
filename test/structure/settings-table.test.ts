// D-163: the settings table of src/config.ts is the one list of environment variables. Code reads no SVC_*
// variable the table lacks, src/ reads them only through the table, the loader reads exactly the server's
// rows, and the README block, docs/settings.md and `svckit serve --help` are what the table makes.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS, type Setting } from '../../src/config.ts';
import { ErrorCode } from '../../src/server/http/error-codes.ts';
import { README, renderSettingsPage, SETTINGS_PAGE, withReadmeBlock } from '../../scripts/settings-docs.ts';
import { REPO_ROOT } from '../../src/paths.ts';

const SCANNED = ['src', 'conformance', 'scripts', 'bin'];
const SETTING = /^SVC_[A-Z0-9_]+$/;
/** The files that read the environment for the table. */
const LOADER = ['src/config.ts', 'src/config-readers.ts'];

/** The code files under `dir`, relative to the repository root. */
function codeFiles(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => path.relative(REPO_ROOT, path.join(entry.parentPath, entry.name)));
}

/** How code names an environment variable: read as a property or an index, destructured, or set as an object key. */
type Use = { file: string; line: number; name: string; how: 'read' | 'key' };

/** Every SVC_* name `source` reads (`x.SVC_A`, `x['SVC_A']`, `{ SVC_A } = x`) or sets as an object key (`{ SVC_A: '0' }`). */
function settingUses(file: string, source: string): Use[] {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const uses: Use[] = [];
  const add = (node: ts.Node, name: string, how: Use['how']) => {
    if (SETTING.test(name))
      uses.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, name, how });
  };
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node)) add(node, node.name.text, 'read');
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression))
      add(node, node.argumentExpression.text, 'read');
    else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const key = node.propertyName ?? node.name;
      if (ts.isIdentifier(key) || ts.isStringLiteralLike(key)) add(node, key.text, 'read');
    } else if (
      (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteralLike(node.name))
    ) {
      add(node, node.name.text, 'key');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return uses;
}

let scanned: Use[] | undefined;
/** Every use in the scanned folders; the contracts' error codes (e.g. SVC_ID_MISMATCH) share the prefix but are no settings. */
const uses = () =>
  (scanned ??= SCANNED.flatMap(codeFiles)
    .flatMap((file) => settingUses(file, readFileSync(path.join(REPO_ROOT, file), 'utf8')))
    .filter((u) => !(u.name in ErrorCode)));
const where = (list: Use[]) => list.map((u) => `${u.file}:${u.line} ${u.name}`);
const rows = () => Object.entries(SETTINGS) as [string, Setting<unknown>][];

describe('the settings table', () => {
  it('finds reads, destructuring and keys of SVC_* variables (the scanner itself)', () => {
    const found = settingUses(
      'x.ts',
      "const a = process.env.SVC_A; const b = env['SVC_B']; const { SVC_C, SVC_D: d } = env; load({ SVC_E: '1' }); const f = SVC_NOT_READ;",
    );
    expect(found.map((u) => `${u.name} ${u.how}`)).toEqual([
      'SVC_A read',
      'SVC_B read',
      'SVC_C read',
      'SVC_D read',
      'SVC_E key',
    ]);
  });

  it('has a row for every SVC_* variable code in src/, conformance/, scripts/ and bin/ reads or sets', () => {
    const all = uses();
    expect(all.filter((u) => u.how === 'read').length).toBeGreaterThan(0);
    expect(where(all.filter((u) => !(u.name in SETTINGS)))).toEqual([]);
  });

  it('is the only way src/ reads an SVC_* variable', () => {
    const direct = uses().filter((u) => u.how === 'read' && u.file.startsWith('src/') && !LOADER.includes(u.file));
    expect(where(direct)).toEqual([]);
  });

  it('is read by loadConfig exactly in its rows that svckit serve reads', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, { get: (_, name) => void read.add(String(name)) });
    loadConfig(env);
    const served = rows()
      .filter(([, s]) => s.readBy.includes('svckit serve'))
      .map(([name]) => name);
    expect([...read].sort()).toEqual(served.sort());
  });

  it('gives every row a description, the source it carries out and at least one reader', () => {
    for (const [name, s] of rows()) {
      expect(s.description, name).not.toBe('');
      expect(s.implements, name).toMatch(/D-\d{3}|spec "/);
      expect(s.readBy.length, name).toBeGreaterThan(0);
    }
  });

  it('makes the README settings block and docs/settings.md as committed (npm run docs:settings)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toBe(withReadmeBlock(readme));
    expect(readFileSync(SETTINGS_PAGE, 'utf8')).toBe(renderSettingsPage());
    for (const [name] of rows()) expect(readme).toContain(`| \`${name}\` |`);
  });

  it('is listed whole by svckit serve --help, with each default', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/svckit.js', 'serve', '--help'], {
      cwd: REPO_ROOT,
    });
    for (const [name, s] of rows()) {
      const line = stdout.split('\n').find((l) => l.startsWith(`  ${name}  (`));
      expect(line, name).toBeDefined();
      expect(line, name).toContain(s.default === undefined ? 'no default' : `default ${s.default}`);
    }
  });
});
