// `svckit proxy` as a user runs it (D-249, D-251): bad options stop it with exit 2 and a clear message; on
// loopback with --plain-http it judges traffic, writes its reports every --report-interval and on SIGINT, keeps a
// valid HAR file, and exits 1 after violations.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SVCKIT_BIN } from '../../src/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-proxy-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const proxyArgs = (...args: string[]) => [SVCKIT_BIN, 'proxy', '--tls-dir', path.join(dir, 'tls'), ...args];

describe('svckit proxy options', () => {
  it.each([
    [['--upstream', 'http://example.com'], /"--upstream" expected an https URL, or http on a loopback address/],
    [
      ['--upstream', 'https://example.com', '--plain-http', '--host', '0.0.0.0'],
      /"--plain-http" is allowed on a loopback --host only/,
    ],
    [['--upstream', 'https://example.com', '--max-body', '10'], /"--max-body" expected an integer from 1024/],
    [
      ['--upstream', 'https://example.com', '--report', 'xml'],
      /"--report" expected a comma-separated list of json, junit, html/,
    ],
    [['--upstream', 'https://example.com', '--tls-cert', 'cert.pem'], /"--tls-cert" and "--tls-key" go together/],
  ])('refuses %j with exit 2', (args, message) => {
    const run = spawnSync(process.execPath, proxyArgs(...args), { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('svckit proxy on loopback', () => {
  it('writes its reports on an interval and on SIGINT, a valid HAR file, and exits 1 after violations', async () => {
    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"blockNumber":5}');
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const out = path.join(dir, 'reports');
    const har = path.join(dir, 'traffic.har');
    const args = proxyArgs(
      '--upstream',
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      '--plain-http',
      '--port',
      '0',
      '--out',
      out,
      '--har',
      har,
      '--report-interval',
      '1',
      '--report',
      'json',
    );
    const proxy = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      let stderr = '';
      proxy.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const base = await new Promise<string>((resolve, reject) => {
        proxy.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
        proxy.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /svckit proxy: base (\S+) ->/.exec(stdout);
          if (m) resolve(m[1] as string);
        });
      });
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${base}/api/stats`);
      expect(await res.text()).toBe('{"blockNumber":5}');
      expect(res.headers.get('x-svckit-violations')).toBe('1');
      // The interval's report, before the proxy stops.
      const report = path.join(out, 'conformance.json');
      for (let i = 0; i < 50 && !existsSync(report); i++) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(report)).toBe(true);
      // The HAR file is a whole document while the proxy runs.
      expect((JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: unknown[] } }).log.entries).toHaveLength(1);
      proxy.kill('SIGINT');
      const [code] = await once(proxy, 'exit');
      expect(code).toBe(1);
      expect(stdout).toContain('svckit proxy: 1 exchanges, 1 violations, 0 client mistakes, 0 not judged');
      expect(stderr).toContain('"check":"generated.response_schema_conformance"');
      const written = JSON.parse(readFileSync(report, 'utf8')) as { checks: { id: string; status: string }[] };
      expect(written.checks.find((c) => c.id === 'generated.response_schema_conformance')?.status).toBe('failed');
    } finally {
      if (proxy.exitCode === null) proxy.kill('SIGKILL');
      upstream.close();
    }
  }, 60_000);
});
