// `svckit proxy` in front of the reference stack, with a run of `svckit conformance --base <proxy>` through it
// (D-249): every answer the run gets is judged by the proxy, 0 violations are reported, and on SIGTERM the proxy
// writes the reports of `svckit conformance`, with the coverage the traffic exercised, and a HAR file.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED_REFERENCE_ENV } from '../../conformance/engine/target.ts';
import type { RunReport } from '../../conformance/report/model.ts';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let proxy: ChildProcess;
const dir = mkdtempSync(path.join(tmpdir(), 'svckit-proxy-ref-'));
const urls: Record<string, string> = {};
let proxyErr = '';
let proxyOut = '';

beforeAll(async () => {
  // The wallet's extension download answers 503 until an extension is built; a built one (a manifest) is given.
  const extension = path.join(dir, 'extension');
  mkdirSync(extension);
  writeFileSync(path.join(extension, 'manifest.json'), '{"manifest_version":3,"name":"svckit test","version":"0.1.0"}');
  stack = await startTestStack({
    env: { ...LIFTED_LIMITS, ...UNLIMITED_REFERENCE_ENV, SVC_WALLET_EXTENSION_DIR: extension },
  });
  writeFileSync(path.join(dir, 'stack-ca.pem'), stack.stack.tls.caCert);
  writeFileSync(path.join(dir, 'admin-token'), stack.target.adminToken ?? '');
  const upstream = (u: URL | undefined) => String(u).replace(/\/$/, '');
  proxy = spawn(
    process.execPath,
    [
      SVCKIT_BIN,
      'proxy',
      '--upstream',
      upstream(stack.target.base),
      '--wallet-upstream',
      upstream(stack.target.wallet),
      '--site-upstream',
      upstream(stack.target.site),
      '--ca-cert',
      path.join(dir, 'stack-ca.pem'),
      '--port',
      '0',
      '--wallet-port',
      '0',
      '--site-port',
      '0',
      '--tls-dir',
      path.join(dir, 'proxy'),
      '--out',
      path.join(dir, 'proxy-reports'),
      '--har',
      path.join(dir, 'traffic.har'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proxy.stderr?.on('data', (d: Buffer) => {
    proxyErr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('exit', (code) => reject(new Error(`svckit proxy exited ${code}: ${proxyErr}`)));
    proxy.stdout?.on('data', (d: Buffer) => {
      proxyOut += d.toString();
      for (const m of proxyOut.matchAll(/svckit proxy: (base|wallet|site) (\S+) ->/g))
        urls[m[1] as string] = m[2] as string;
      if (proxyOut.includes('development CA')) resolve();
    });
  });
}, 120_000);

afterAll(async () => {
  if (proxy && proxy.exitCode === null) proxy.kill('SIGKILL');
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('svckit proxy in front of the reference stack', () => {
  it('judges every answer of a conformance run through it and reports 0 violations', async () => {
    const run = spawn(
      process.execPath,
      [
        SVCKIT_BIN,
        'conformance',
        '--base',
        urls.base as string,
        '--wallet',
        urls.wallet as string,
        '--site',
        urls.site as string,
        '--ca-cert',
        path.join(dir, 'proxy', 'tls', 'ca.pem'),
        '--admin-token-file',
        path.join(dir, 'admin-token'),
        '--only',
        'generated',
        '--phases',
        'examples,coverage',
        '--seed',
        '1',
        '--report',
        'json',
        '--out',
        path.join(dir, 'run-reports'),
        '--quiet',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let runOut = '';
    run.stdout?.on('data', (d: Buffer) => {
      runOut += d.toString();
    });
    run.stderr?.on('data', (d: Buffer) => {
      runOut += d.toString();
    });
    const [runCode] = await once(run, 'exit');
    expect(runCode, runOut.slice(-2000)).toBe(0);
    const runReport = JSON.parse(readFileSync(path.join(dir, 'run-reports', 'conformance.json'), 'utf8')) as RunReport;

    proxy.kill('SIGTERM');
    const [proxyCode] = await once(proxy, 'exit');
    const lines = proxyErr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const violations = lines.filter((l) => typeof l.check === 'string');
    expect(violations, JSON.stringify(violations.slice(0, 5))).toEqual([]);
    expect(lines.filter((l) => l.notJudged !== undefined)).toEqual([]);
    expect(proxyCode).toBe(0);
    expect(proxyOut).toMatch(/svckit proxy: \d+ exchanges, 0 violations, \d+ client mistakes, 0 not judged/);

    // Every request of the run on the HTTP surfaces got a verdict of not_a_server_error from the proxy.
    const report = JSON.parse(readFileSync(path.join(dir, 'proxy-reports', 'conformance.json'), 'utf8')) as RunReport;
    const judged = report.checks.find((c) => c.id === 'generated.not_a_server_error');
    for (const surface of ['institutional', 'explorer', 'wallet', 'admin', 'chain']) {
      const sent = runReport.surfaces[surface]?.requests ?? 0;
      expect(sent, surface).toBeGreaterThan(0);
      expect(judged?.cases?.bySurface[surface]?.passed ?? 0, surface).toBeGreaterThanOrEqual(sent);
    }
    expect(report.summary.failed).toBe(0);
    expect(report.checks.find((c) => c.id === 'generated.tls_hybrid_group')?.status).toBe('passed');
    // Coverage: the operations real traffic exercised, as the run's own report counts them.
    expect(report.surfaces.explorer?.coverage?.operations).toEqual(runReport.surfaces.explorer?.coverage?.operations);
    const har = JSON.parse(readFileSync(path.join(dir, 'traffic.har'), 'utf8')) as { log: { entries: unknown[] } };
    expect(har.log.entries.length).toBeGreaterThanOrEqual(runReport.surfaces.explorer?.requests ?? 1);
    expect(readFileSync(path.join(dir, 'traffic.har'), 'utf8')).not.toContain(stack.target.adminToken as string);
  }, 600_000);
});
