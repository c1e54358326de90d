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

/**
 * `{method} {base}/admin/v1<route>` with the deployment's admin token; a 429 (the admin API's 10/s) is waited
 * out, and any other status than 200 or 201 throws.
 */
async function admin<T>(route: string, method = 'GET', body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const { status, text, retryAfter } = await adminOnce(route, method, body);
    if (status === 200 || status === 201) return JSON.parse(text) as T;
    if (status !== 429 || attempt === 5) throw new Error(`${method} ${route}: ${status} ${text}`);
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
  }
}

function adminOnce(
  route: string,
  method: string,
  body: unknown,
): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
  const url = new URL(`admin/v1${route}`, `${serve.ready.base}/`);
  const headers: Record<string, string> = { authorization: `Bearer ${serve.ready.adminToken}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    https
      .request(url, { method, ca: readFileSync(serve.ready.caCert), headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text, retryAfter: res.headers['retry-after'] as string | undefined }),
        );
      })
      .on('error', reject)
      .end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * What an operator would compare before and after a run: the validators, the usable API and ML-DSA keys, the
 * webhook endpoints, the sender allow-list, and the accounts that are not closed.
 */
async function deploymentState() {
  const usable = (list: { id: string; revokedAt: string | null }[]) =>
    list
      .filter((k) => k.revokedAt === null)
      .map((k) => k.id)
      .sort();
  const validators = await admin<{ validators: string[] }>('/qbft/validators');
  const votes = await admin<{ votes?: unknown[] }>('/qbft/votes');
  const keys = (await admin<{ apiKeys: { id: string; revokedAt: string | null }[] }>('/api-keys')).apiKeys;
  const mldsa = (await admin<{ mldsaKeys: { id: string; revokedAt: string | null }[] }>('/mldsa-keys')).mldsaKeys;
  const endpoints = (await admin<{ endpoints: { id: string; url: string }[] }>('/webhooks/endpoints')).endpoints;
  const allowList = (await admin<{ accounts: { address: string }[] }>('/chain/accounts?limit=200')).accounts;
  const accounts = (await admin<{ accounts: { id: string; email: string; status: string }[] }>('/accounts?limit=200'))
    .accounts;
  return {
    validators: [...validators.validators].sort(),
    pendingVotes: votes.votes?.length ?? 0,
    usableApiKeys: usable(keys),
    usableMldsaKeys: usable(mldsa),
    endpoints: endpoints.map((e) => e.url).sort(),
    allowList: allowList.map((a) => a.address.toLowerCase()).sort(),
    // An account cannot be deleted: the run closes the ones it opened (D-182), so only accounts that are not
    // closed are compared; one of the deployment's own that the run closed would be missing here.
    accounts: accounts
      .filter((a) => a.status !== 'closed')
      .map((a) => `${a.id} ${a.status}`)
      .sort(),
  };
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

  // A run with every generated phase, as a QA team runs it against a deployment holding its own data: afterwards the
  // validators, keys, endpoints, allow-list and accounts are as before, and a second run also has no failure (D-182,
  // D-237, D-243). Few fuzz examples per operation keep it inside the full tier's time; the cases each check sends
  // are the same kinds as at the default 100.
  const everyPhase = (out: string) => [
    '--receiver-tls-dir',
    trustedDir,
    '--phases',
    'examples,coverage,fuzz,stateful',
    '--max-examples',
    '2',
    '--seed',
    '20261127',
    '--report',
    'json,junit,html,ndjson',
    '--har',
    path.join(work, out, 'run.har'),
    '--out',
    path.join(work, out),
  ];
  let before: Awaited<ReturnType<typeof deploymentState>>;

  it('gives no failures with every phase under the default rate limits, and leaves the deployment as it found it', async () => {
    // The deployment's own data, which the run must leave as it is.
    await admin('/accounts', 'POST', { email: 'ops@bank-own.example', dailyLimit: 1000, singleLimit: 100 });
    await admin('/api-keys', 'POST', { name: 'own-key', permissions: ['accounts:read'] });
    await admin('/chain/accounts', 'POST', { address: '0x5c6B0f7Bf3E7ce046039Bd8FABdfD3f9F5021678' });
    before = await deploymentState();
    expect(before.usableApiKeys).toHaveLength(1);
    expect(before.validators.length).toBeGreaterThanOrEqual(4);

    const run = await conformance(everyPhase('r2'));
    console.log(`every phase against svckit serve: ${run.wallMs} ms; ${summaryLine(run)}`);
    const report = jsonReport(run);
    const failures = report.checks.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(140);
    // Every generated check that applies ran its cases by URL.
    expect(report.checks.filter((r) => r.id.startsWith('generated.') && r.status === 'passed').length).toBeGreaterThan(
      15,
    );
    // The webhook checks ran (the preflight passed) and passed.
    expect(report.checks.filter((r) => r.id.startsWith('webhooks.') && r.status === 'passed').length).toBeGreaterThan(
      10,
    );
    // The limits were met: some requests were answered 429 and sent again, each noted with its check.
    expect(report.checks.some((r) => r.retries?.some((line) => /HTTP 429/.test(line)))).toBe(true);
    // Every report format asked for, and the HAR, were written.
    for (const file of [
      'conformance.json',
      'conformance.junit.xml',
      'conformance.html',
      'conformance.ndjson',
      'run.har',
    ])
      expect(readFileSync(path.join(work, 'r2', file), 'utf8').length, file).toBeGreaterThan(100);
    // Progress went to stderr while the run went on.
    expect(run.stderr).toMatch(/PASS chain\.eth_chainid\.value \(\d+ passed, 0 failed, \d+ skipped\)/);
    expect(run.stderr).toMatch(/cleaned up \d+ webhook endpoints?/);
    expect(await deploymentState()).toEqual(before);
    expect(await leftovers()).toMatchObject({ usableMldsaKeys: 0, openAccounts: 0, pendingDeliveries: 0 });
  }, 1_800_000);

  it('a second run with every phase also gives no failures, and the deployment is still as it was', async () => {
    expect(before, 'the first run set the state to compare with').toBeDefined();
    const run = await conformance(everyPhase('r3'));
    console.log(`second run against svckit serve: ${run.wallMs} ms; ${summaryLine(run)}`);
    const failures = jsonReport(run)
      .checks.filter((r) => r.status === 'failed')
      .map((r) => `${r.id}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(run.code).toBe(0);
    expect(await deploymentState()).toEqual(before);
  }, 1_800_000);
});

/** The run's last "passed, … failed" line on stdout. */
function summaryLine(run: Run): string | undefined {
  return run.stdout
    .trim()
    .split('\n')
    .filter((l) => /passed, .* failed/.test(l))
    .at(-1);
}
