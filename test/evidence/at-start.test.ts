// D-153: `svckit serve` builds a missing or stale evidence document in the background, so a fresh start
// serves surface F without a separate `svckit evidence build`. A real `svckit serve` process on a fresh data
// directory: the ready line is the only line on stdout, the site answers 503 with Retry-After or the
// document, and the document it then serves verifies. A second start finds it current and leaves it alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from '../../conformance/http.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { buildEvidenceAtStart, documentAgeDays } from '../../conformance/evidence/at-start.ts';
import { verifyEvidence } from '../../src/evidence/verify.ts';
import { TEST_STACK_ENV } from '../support/stack.ts';

type Ready = { event: string; base: string; site: string; caCert: string };
const dirs: string[] = [];
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const freshDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** Checks `condition` every 50 ms until it holds; fails with `what()` once `boundMs` have passed without it. */
async function until(condition: () => boolean, boundMs: number, what: () => string): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(what());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `svckit serve` on `dataDir`; resolves at the ready line with every stdout line and the stderr text so far. */
async function serve(dataDir: string) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    ...TEST_STACK_ENV,
    SVC_LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.SVC_EVIDENCE_AT_START;
  const child = spawn(process.execPath, [path.resolve('bin/svckit.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const stdout: string[] = [];
  const log = { stderr: '' };
  child.stderr!.on('data', (chunk: Buffer) => (log.stderr += chunk.toString('utf8')));
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => stdout.push(line));
  const ready = await new Promise<Ready>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.includes('"event":"ready"')) resolve(JSON.parse(line) as Ready);
    });
    child.once('exit', (code) =>
      reject(new Error(`svckit serve exited with ${code} before it was ready: ${log.stderr}`)),
    );
  });
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    running.delete(child);
  };
  return { ready, stdout, log, stop };
}

describe('the evidence document at start (D-153)', () => {
  it('a fresh svckit serve builds it in the background and serves a document that verifies; a second start leaves it alone', {
    timeout: 240_000,
  }, async () => {
    const dataDir = freshDir('svckit-evidence-start-');
    const first = await serve(dataDir);
    const site = remoteTarget({ base: first.ready.site, caCert: readFileSync(first.ready.caCert, 'utf8') });
    // Until the build ends the site answers 503 with Retry-After; the build's end is its line on stderr.
    const building = await request(site, '.well-known/pqc-evidence.json');
    if (building.status !== 200) {
      expect(building.status).toBe(503);
      expect(building.headers['retry-after']).toBe('10');
      expect(building.json).toMatchObject({ code: 'EVIDENCE_NOT_BUILT' });
    }
    await until(
      () => /evidence document built in \d+\.\d s|the evidence build failed/.test(first.log.stderr),
      200_000,
      () => `the evidence build ended neither way within 200 s; stderr:\n${first.log.stderr}`,
    );
    expect(first.log.stderr).toMatch(/evidence document built in \d+\.\d s/);
    const res = await request(site, '.well-known/pqc-evidence.json');
    expect(res.status, `stderr:\n${first.log.stderr}`).toBe(200);
    const served = res.json;
    expect(verifyEvidence(served).status).toBe('verified');
    // The optional package that ships the Anvil binary runs too, so it is listed with its locked version.
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    expect((served as { packages: { name: string; version: string }[] }).packages).toContainEqual(
      expect.objectContaining({
        name: '@foundry-rs/anvil-linux-amd64',
        version: lock.packages['node_modules/@foundry-rs/anvil-linux-amd64']!.version,
      }),
    );
    expect(first.stdout.filter((l) => l.trim() !== '')).toEqual([expect.stringContaining('"event":"ready"')]);
    await first.stop();

    const documentPath = path.join(dataDir, 'evidence', 'pqc-evidence.json');
    const builtAt = statSync(documentPath).mtimeMs;
    const second = await serve(dataDir);
    await expect.poll(() => second.log.stderr, { timeout: 10_000 }).toMatch(/evidence document is current/);
    await second.stop();
    expect(statSync(documentPath).mtimeMs).toBe(builtAt);
  });

  it('rebuilds a document older than the D-045 limit', { timeout: 120_000 }, async () => {
    const dir = freshDir('svckit-evidence-stale-');
    mkdirSync(dir, { recursive: true });
    const stale = new Date(Date.now() - 31 * 86_400_000).toISOString();
    writeFileSync(path.join(dir, 'pqc-evidence.json'), JSON.stringify({ generated: stale }));
    expect(documentAgeDays(dir)).toBeGreaterThan(30);
    const lines: string[] = [];
    const outcome = await buildEvidenceAtStart({ evidenceDir: dir, log: (l) => lines.push(l) }).done;
    expect(outcome, lines.join('\n')).toBe('built');
    expect(documentAgeDays(dir)).toBeLessThan(1);
    expect(verifyEvidence(JSON.parse(readFileSync(path.join(dir, 'pqc-evidence.json'), 'utf8'))).status).toBe(
      'verified',
    );
  });
});
