// `svckit conformance` options QA teams use (D-182, D-232): --list prints the selected checks and exits, --exclude
// leaves checks out next to --only, --config takes the flag names as keys (JSON or YAML; flags given on the
// command line win; an unknown key is a usage error), and --rate / --check-timeout refuse bad values.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    expect(empty).toEqual([
      'chain.batch.empty',
      'C',
      'hand-written',
      'D-051',
      'an empty batch gets one -32600 error object',
    ]);
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
      [['--config', file('bad-list.json', '{"only":"chain"}')], /\/only must be array/],
      [['--config', file('bad-check.json', '{"checks":{"chain.batch":{"skip":""}}}')], /\/checks\/chain\.batch\/skip/],
      [['--config', file('bad-setting.json', '{"checks":{"chain.batch":{"timeout":5}}}')], /unknown key "timeout"/],
      [
        [
          '--config',
          file('bad-expected.json', '{"checks":{"chain.batch":{"expectedStatuses":{"GET /accounts":[200]}}}}'),
        ],
        /expectedStatuses applies only to the generated checks that judge statuses/,
      ],
      [
        ['--config', file('bad-status.json', '{"checks":{"generated":{"expectedStatuses":{"GET /accounts":[20]}}}}')],
        /expectedStatuses\/GET ~1accounts\/0 must be >= 100/,
      ],
      [['--min-score', '101', '--list'], /"--min-score" expected a number from 0 to 100/],
      [['--min-coverage', 'operations=90,paths=10', '--list'], /"--min-coverage" expected figure=percent pairs/],
      [['--report', 'pdf', '--list'], /"--report" expected a comma-separated list of json, junit, html, ndjson/],
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

  it('--list shows the generated checks with their phases, and --only selects one of them (D-232)', () => {
    const all = svckit('--list');
    expect(all.status, all.stderr).toBe(0);
    expect(ids(all.stdout)).toContain('generated.use_after_free');
    expect(ids(all.stdout)).toContain('institutional.auth.missing_credentials');
    const one = svckit('--list', '--only', 'generated.use_after_free');
    expect(one.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^generated\.use_after_free\tall\tstateful\tD-190\t/),
    ]);
    const none = svckit('--list', '--only', 'generated', '--exclude', 'generated.evidence_cli_agrees');
    expect(ids(none.stdout)).not.toContain('generated.evidence_cli_agrees');
    expect(ids(none.stdout).every((id) => id?.startsWith('generated.'))).toBe(true);
  });

  it('exits 3 when an origin of the target answers nothing, naming it', () => {
    const run = svckit('--base', 'https://127.0.0.1:9/', '--only', 'chain.errors.parse_error');
    expect(run.status, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/unreachable: https:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
  });
});

describe('one run of hand-written and generated checks against the mocks (D-232)', { timeout: 300_000 }, () => {
  it('expectedStatuses in --config judges a status check by the listed statuses for that operation (D-245)', () => {
    const out = path.join(dir, 'expected-run');
    // The mocks answer 401 without a credential, which ignored_auth wants; a team expecting 403 on GET /accounts
    // sees exactly that operation fail, by the list it gave.
    const config = file(
      'expected.json',
      JSON.stringify({ checks: { 'generated.ignored_auth': { expectedStatuses: { 'GET /accounts': [403] } } } }),
    );
    const run = svckit(
      ...['--target', 'mocks', '--only', 'generated.ignored_auth', '--config', config, '--seed', '7'],
      ...['--report', 'json', '--out', out, '--quiet'],
    );
    expect(run.status, run.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(out, 'conformance.json'), 'utf8'));
    const check = report.checks.find((c: { id: string }) => c.id === 'generated.ignored_auth');
    expect(check.status).toBe('failed');
    const messages: string[] = check.failures.map((f: { message: string }) => f.message);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m).toBe('HTTP 401, expected one of 403 (expectedStatuses of --config)');
    expect(check.failures.every((f: { operation: string }) => f.operation === 'GET /accounts')).toBe(true);
    expect(check.cases.passed).toBeGreaterThan(10);
  });

  it('--only <generated id> runs exactly that check; a config skip and a gate are reported; exit 1 for the gate', () => {
    const out = path.join(dir, 'mocks-run');
    const config = file(
      'run-checks.json',
      JSON.stringify({ checks: { specs: { skip: 'examples are checked in CI' } } }),
    );
    const run = svckit(
      '--target',
      'mocks',
      '--only',
      'generated.ignored_auth',
      'specs',
      '--config',
      config,
      '--seed',
      '7',
      '--report',
      'json,ndjson',
      '--min-coverage',
      'operations=50,responses=100',
      '--out',
      out,
      '--quiet',
    );
    const report = JSON.parse(readFileSync(path.join(out, 'conformance.json'), 'utf8'));
    const generated = report.checks.filter((c: { origin: string }) => c.origin === 'generated');
    expect(generated.map((c: { id: string }) => c.id)).toEqual(['generated.ignored_auth']);
    expect(generated[0].status).toBe('passed');
    expect(generated[0].cases.passed).toBeGreaterThan(10);
    expect(report.phases).toEqual(['coverage']);
    expect(report.seed).toBe(7);
    const skipped = report.checks.filter((c: { id: string }) => c.id.startsWith('specs.'));
    expect(skipped.length).toBeGreaterThan(0);
    for (const c of skipped)
      expect(c).toMatchObject({
        status: 'skipped',
        reason: "turned off by the run's config: examples are checked in CI",
      });
    // Every operation is reached; not every documented response (a 429 or a 503 is never provoked): one gate is
    // met, the other is not, and says by how much; the run exits 1 for it alone.
    expect(report.gates).toEqual([
      {
        name: 'min-coverage operations',
        ok: true,
        message: expect.stringMatching(/^operations \d+\/\d+ = [\d.]+% ≥ 50%$/),
      },
      {
        name: 'min-coverage responses',
        ok: false,
        message: expect.stringMatching(/^responses \d+\/\d+ = [\d.]+% < 100%$/),
      },
    ]);
    expect(report.summary.failed).toBe(0);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/gate min-coverage operations: met/);
    expect(run.stdout).toMatch(/gate min-coverage responses: NOT MET/);
    const events = readFileSync(path.join(out, 'conformance.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; check?: string });
    expect(events[0]?.type).toBe('run_started');
    expect(events.at(-1)?.type).toBe('run_finished');
    expect(events.filter((e) => e.type === 'check_finished').map((e) => e.check)).toContain('generated.ignored_auth');
    expect(events.some((e) => e.type === 'case_sent')).toBe(true);
    expect(events.some((e) => e.type === 'answer_judged')).toBe(true);
  });
});
