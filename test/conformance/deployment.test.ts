// `svckit conformance` run as a QA team runs it: a child process against a separately started `svckit serve`
// child process with its default rate limits. The run must give no failures (the harness paces itself and waits
// out 429s, D-180), skip the webhook checks quickly with a fix when the deployment does not trust the receiver's
// CA (D-181), and leave nothing behind: no endpoints, no usable keys, no open accounts, no pending deliveries,
// also when interrupted (D-182).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExtension } from '../../scripts/build-extension.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { startServe, type ServeProcess } from '../readme/serve-process.ts';

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; wallMs: number };

const work = mkdtempSync(path.join(tmpdir(), 'svckit-deployment-'));
/** The receiver CA the deployment trusts (SVC_WEBHOOK_CA_FILE), kept between runs with --receiver-tls-dir. */
const trustedDir = path.join(work, 'receiver-trusted');
/** A receiver CA the deployment has never seen. */
const untrustedDir = path.join(work, 'receiver-untrusted');
let serve: ServeProcess;

/** Runs `svckit conformance` against the deployment with `args`; `onStderr` may signal the child. */
function conformance(args: string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<Run> {
  const { base, wallet, site, caCert, adminToken } = serve.ready;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      'bin/svckit.js',
      'conformance',
      ...['--base', base, '--wallet', wallet, '--site', site, '--ca-cert', caCert, '--admin-token', adminToken!],
      ...args,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    onStderr?.(stderr, child);
  });
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr, wallMs: Date.now() - started })),
  );
}

/** GET `{base}/admin/v1<route>` with the deployment's admin token; a 429 (the admin API's 10/s) is waited out. */
async function admin<T>(route: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const { status, text, retryAfter } = await adminOnce(route);
    if (status === 200) return JSON.parse(text) as T;
    if (status !== 429 || attempt === 5) throw new Error(`${route}: ${status} ${text}`);
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
  }
}

function adminOnce(route: string): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
  const url = new URL(`admin/v1${route}`, `${serve.ready.base}/`);
  return new Promise((resolve, reject) => {
    https
      .get(
        url,
        { ca: readFileSync(serve.ready.caCert), headers: { authorization: `Bearer ${serve.ready.adminToken}` } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text,
              retryAfter: res.headers['retry-after'] as string | undefined,
            }),
          );
        },
      )
      .on('error', reject);
  });
}

/** The JSON report a run wrote (`report written: <file>` on stdout). */
function jsonReport(run: Run): { summary: { passed: number; failed: number; skipped: number }; checks: Result[] } {
  const file = /report written: (\S+\.json)/.exec(run.stdout)?.[1];
  if (!file) throw new Error(`no JSON report named on stdout: ${run.stdout.slice(-500)}`);
  return JSON.parse(readFileSync(file, 'utf8'));
}
type Result = { id: string; status: string; reason?: string; retries?: string[] };

/** What a run could have left on the deployment. */
async function leftovers() {
  const endpoints = (await admin<{ endpoints: { id: string }[] }>('/webhooks/endpoints')).endpoints;
  const keys = (await admin<{ apiKeys: { id: string; revokedAt: string | null }[] }>('/api-keys')).apiKeys;
  const mldsa = (await admin<{ mldsaKeys: { id: string; revokedAt: string | null }[] }>('/mldsa-keys')).mldsaKeys;
  const open = [];
  for (const status of ['approved', 'suspended']) {
    const page = await admin<{ accounts: { email: string }[] }>(`/accounts?status=${status}&limit=200`);
    open.push(...page.accounts.filter((a) => a.email.startsWith('conformance-')));
  }
  const pending = await admin<{ total: number }>('/webhooks/deliveries?status=pending');
  return {
    endpoints: endpoints.length,
    usableApiKeys: keys.filter((k) => k.revokedAt === null).length,
    usableMldsaKeys: mldsa.filter((k) => k.revokedAt === null).length,
    openAccounts: open.length,
    pendingDeliveries: pending.total,
    createdKeys: keys.length + mldsa.length,
  };
}

beforeAll(async () => {
  const extension = path.join(work, 'extension');
  await buildExtension(extension);
  const trusted = await ensureDevCertificates(trustedDir, [], 'svckit conformance webhook receiver CA');
  // Default rate limits and defaults otherwise; the deployment can reach and trust the harness's receiver on
  // this machine (D-143, D-102) and offers a built extension, as `npm start` builds it first.
  serve = await startServe({
    SVC_WEBHOOK_ALLOW_PRIVATE: '1',
    SVC_WEBHOOK_CA_FILE: trusted.caCertPath,
    SVC_WALLET_EXTENSION_DIR: extension,
  });
}, 180_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('svckit conformance against a separately started svckit serve', () => {
  it('skips the webhook checks at once, naming the CA to trust, when the deployment does not trust the receiver', async () => {
    const run = await conformance([
      '--only',
      'webhooks',
      '--receiver-tls-dir',
      untrustedDir,
      '--report',
      'json',
      '--out',
      path.join(work, 'r1'),
    ]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const report = jsonReport(run);
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBe(0);
    expect(report.checks.length).toBeGreaterThan(10);
    for (const r of report.checks) {
      expect(r.status).toBe('skipped');
      expect(r.reason).toContain("does not trust the receiver's CA");
      expect(r.reason).toContain(path.join(untrustedDir, 'tls', 'ca.pem'));
      expect(r.reason).toContain('SVC_WEBHOOK_CA_FILE');
    }
    // The deployment's failed attempt is read from its deliveries API, not waited out (first retry: 30 s).
    expect(run.wallMs).toBeLessThan(60_000);
    expect(run.stderr).toMatch(/preflight webhook delivery: failed/);
    expect(await leftovers()).toMatchObject({ endpoints: 0, usableApiKeys: 0, openAccounts: 0, pendingDeliveries: 0 });
  }, 180_000);

  it('cleans up and exits 130 when interrupted with SIGINT', async () => {
    let sent = false;
    const run = await conformance(['--only', 'institutional', '--receiver-tls-dir', trustedDir], (stderr, child) => {
      // Interrupt once the fixture (accounts, keys) exists: after the first institutional check ended.
      if (!sent && /(PASS|FAIL|SKIP) institutional\./.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(run.code, run.stderr.slice(-2000)).toBe(130);
    expect(run.stderr).toMatch(/SIGINT received/);
    expect(run.stderr).toMatch(/cleaned up .*\d+ accounts?\b/);
    const left = await leftovers();
    expect(left.createdKeys).toBeGreaterThan(0);
    expect(left).toMatchObject({ endpoints: 0, usableApiKeys: 0, usableMldsaKeys: 0, openAccounts: 0 });
  }, 180_000);

  it('gives no failures under the default rate limits and leaves nothing registered or pending', async () => {
    const run = await conformance([
      '--receiver-tls-dir',
      trustedDir,
      '--report',
      'json',
      '--out',
      path.join(work, 'r2'),
    ]);
    console.log(
      `full run against svckit serve: ${run.wallMs} ms; ${run.stdout
        .trim()
        .split('\n')
        .filter((l) => /passed, .* failed/.test(l))
        .at(-1)}`,
    );
    const report = jsonReport(run);
    const failures = report.checks.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(120);
    // The webhook checks ran (the preflight passed) and passed.
    expect(report.checks.filter((r) => r.id.startsWith('webhooks.') && r.status === 'passed').length).toBeGreaterThan(
      10,
    );
    // The limits were met: some requests were answered 429 and sent again, each noted with its check.
    expect(report.checks.some((r) => r.retries?.some((line) => /HTTP 429/.test(line)))).toBe(true);
    // Progress went to stderr while the run went on.
    expect(run.stderr).toMatch(/PASS chain\.eth_chainid\.value \(\d+ passed, 0 failed, \d+ skipped\)/);
    expect(run.stderr).toMatch(/cleaned up \d+ webhook endpoints?/);
    expect(await leftovers()).toMatchObject({
      endpoints: 0,
      usableApiKeys: 0,
      usableMldsaKeys: 0,
      openAccounts: 0,
      pendingDeliveries: 0,
    });
  }, 900_000);
});
