// `svckit diff` as a user runs it (D-246): git references, exit codes for --fail-on and bad input, and the
// three output formats.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { OPENAPI } from './fixtures.ts';

let repo = '';
const svckit = (...args: string[]) =>
  spawnSync(process.execPath, [SVCKIT_BIN, 'diff', ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000 });

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), 'svckit-diff-cli-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  mkdirSync(path.join(repo, 'specs'));
  writeFileSync(path.join(repo, 'specs', 'accounts.openapi.yaml'), stringify(OPENAPI));
  git('add', '.');
  git('commit', '-qm', 'one');
  git('tag', 'v1.0.0');
  const after = structuredClone(OPENAPI);
  after.components.schemas.Account.properties.status.enum.push('frozen');
  writeFileSync(path.join(repo, 'specs', 'accounts.openapi.yaml'), stringify(after));
  git('commit', '-qam', 'two: a response enum value added');
  delete (after.paths as Record<string, unknown>)['/accounts/{id}'];
  writeFileSync(path.join(repo, 'specs', 'accounts.openapi.yaml'), stringify(after));
  git('commit', '-qam', 'three: a path removed');
});

describe('svckit diff', { timeout: 120_000 }, () => {
  it('compares specs/ at two git references and sets the exit code by --fail-on', () => {
    const warning = svckit('v1.0.0', 'HEAD~1', '--fail-on', 'breaking');
    expect(warning.status, warning.stderr).toBe(0);
    expect(warning.stdout).toContain(
      'WARNING  openapi.response.enum_value_added  accounts.openapi.yaml#/components/schemas/Account/properties/status',
    );
    expect(svckit('v1.0.0', 'HEAD~1', '--fail-on', 'warning').status).toBe(1);
    const breaking = svckit('v1.0.0', 'HEAD', '--fail-on', 'breaking', '--format', 'json');
    expect(breaking.status, breaking.stderr).toBe(1);
    const report = JSON.parse(breaking.stdout);
    expect(report.summary).toEqual({ breaking: 3, warning: 1, info: 0 });
    expect(report.changes.map((c: { rule: string }) => c.rule)).toEqual([
      'openapi.path_removed',
      'version.major_not_bumped',
      'changes.entry_missing',
      'openapi.response.enum_value_added',
    ]);
  });

  it('compares two files and writes Markdown', () => {
    const result = svckit('specs/accounts.openapi.yaml', 'specs/accounts.openapi.yaml', '--format', 'markdown');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('0 change(s): 0 breaking, 0 warning, 0 info');
  });

  it('exits 2 with a clear message for bad input', () => {
    const unknown = svckit('no-such-ref', 'HEAD');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('"no-such-ref" is neither a file, a folder nor a git reference');
    writeFileSync(path.join(repo, 'bad.yaml'), 'openapi: [');
    const bad = svckit('bad.yaml', 'specs/accounts.openapi.yaml');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('bad.yaml: not YAML or JSON');
    expect(svckit('v1.0.0', 'HEAD', '--fail-on', 'sometimes').status).toBe(2);
  });
});
