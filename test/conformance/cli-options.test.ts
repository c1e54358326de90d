// `svckit conformance` options QA teams use (D-182): --list prints the selected checks and exits, --exclude
// leaves checks out next to --only, --config takes the flag names as keys (JSON or YAML; flags given on the
// command line win; an unknown key is a usage error), and --rate / --check-timeout refuse bad values.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SVCKIT_BIN } from '../../src/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-conformance-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const svckit = (...args: string[]) =>
  spawnSync(process.execPath, [SVCKIT_BIN, 'conformance', ...args], { encoding: 'utf8', timeout: 120_000 });
const ids = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t')[0]);
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};

describe('svckit conformance --list, --exclude and --config', { timeout: 240_000 }, () => {
  it('--list prints id, surface, source and title of the selected checks, less --exclude, and exits 0', () => {
    const run = svckit('--list', '--only', 'chain.errors', 'chain.batch', '--exclude', 'chain.batch.oversized');
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(ids(run.stdout)).toContain('chain.batch.empty');
    expect(ids(run.stdout)).toContain('chain.errors.parse_error');
    expect(ids(run.stdout)).not.toContain('chain.batch.oversized');
    expect(ids(run.stdout).every((id) => /^chain\.(errors|batch)\./.test(id!))).toBe(true);
    const empty = lines.find((l) => l.startsWith('chain.batch.empty\t'))!.split('\t');
    expect(empty).toEqual(['chain.batch.empty', 'C', 'D-051', 'an empty batch gets one -32600 error object']);
  });

  it('--config (YAML) sets flags, the command line wins, and JSON works alike', () => {
    const yaml = file('run.yaml', 'only:\n  - chain.batch\nexclude: [chain.batch.empty]\nrate: 5\n');
    const fromFile = svckit('--list', '--config', yaml);
    expect(fromFile.status, fromFile.stderr).toBe(0);
    expect(ids(fromFile.stdout)).toEqual(['chain.batch.oversized', 'chain.batch.answers_each']);
    const overridden = svckit('--list', '--config', yaml, '--only', 'chain.errors.parse_error');
    expect(ids(overridden.stdout)).toEqual(['chain.errors.parse_error']);
    const json = file('run.json', JSON.stringify({ only: ['chain.batch.empty'], 'check-timeout': 30 }));
    const fromJson = svckit('--list', '--config', json);
    expect(fromJson.status, fromJson.stderr).toBe(0);
    expect(ids(fromJson.stdout)).toEqual(['chain.batch.empty']);
  });

  it('exits 2 on an unknown config key, a bad value, a bad --rate or --check-timeout, and an --exclude matching nothing', () => {
    const cases: [string[], RegExp][] = [
      [['--config', file('bad-key.json', '{"bsae":"https://x.example"}')], /unknown key "bsae"/],
      [['--config', file('bad-list.json', '{"only":"chain"}')], /"only" expected a list of strings/],
      [['--config', file('list.yaml', '- a\n')], /expected an object of flag names/],
      [['--config', path.join(dir, 'missing.yaml')], /cannot read/],
      [['--rate', 'fast', '--list'], /"--rate" expected requests per second/],
      [['--rate', '0', '--list'], /"--rate" expected requests per second/],
      [['--check-timeout', '-1', '--list'], /"--check-timeout" expected seconds/],
      [['--list', '--exclude', 'nothing.here'], /"exclude" prefix "nothing.here" matches no check/],
    ];
    for (const [args, message] of cases) {
      const run = svckit(...args);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });
});
