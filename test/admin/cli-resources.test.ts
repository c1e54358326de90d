// `svckit admin` groups beyond chain-accounts, each run as a separate process against the in-process reference
// stack over real HTTPS: api-keys, mldsa-keys, accounts, kek, webhooks, payments, qbft and health; tables by
// default, --json and --field for scripts, the base origin from SVC_HOST and SVC_BASE_PORT, and a non-zero exit
// with the server's {error}.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { mlDsa65, toHex } from '../../src/crypto/index.ts';
import { svckitAdmin } from './cli-run.ts';
import { wallet } from './support.ts';

let target: Target;
let common: string[];
const scratch = mkdtempSync(path.join(tmpdir(), 'svckit-admin-cli-'));
const ca = path.join(scratch, 'ca.pem');
beforeAll(async () => {
  target = await referenceTarget();
  writeFileSync(ca, target.caCert!);
  common = ['--base', target.base!.href, '--ca-cert', ca, '--token', target.adminToken!];
});
afterAll(async () => {
  await target?.close?.();
  rmSync(scratch, { recursive: true, force: true });
});

const ok = (run: { code: number; stderr: string }) => expect(run.code, run.stderr).toBe(0);

describe('svckit admin accounts and api-keys (CLI)', () => {
  it('creates two accounts, funds one, issues a key that works on the institutional API, and lists them', async () => {
    const first = await svckitAdmin([
      'accounts',
      'create',
      '--email',
      'ops@bank-a.example',
      '--daily-limit',
      '50000',
      '--single-limit',
      '10000',
      '--field',
      'id',
      ...common,
    ]);
    ok(first);
    const a = first.stdout.trim();
    expect(a).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);
    const second = await svckitAdmin([
      'accounts',
      'create',
      '--email',
      'ops@bank-b.example',
      '--daily-limit',
      '900',
      '--single-limit',
      '100',
      '--json',
      ...common,
    ]);
    ok(second);
    const b = JSON.parse(second.stdout) as { id: string; dailyLimit: number; singleLimit: number; balance: string };
    expect(b).toMatchObject({ dailyLimit: 900, singleLimit: 100, balance: '0.00' });

    const funded = await svckitAdmin(['accounts', 'fund', a, '250.00', ...common]);
    ok(funded);
    expect(funded.stdout).toMatch(new RegExp(`^funded ${a} with 250\\.00 in 0x[0-9a-f]{64}; balance 250\\.00\\n$`));
    const shown = await svckitAdmin(['accounts', 'get', a, ...common]);
    ok(shown);
    expect(shown.stdout.split('\n')[0]).toMatch(/^ID +REFERENCE +EMAIL +STATUS +BALANCE +DAILY +SINGLE +ADDRESS$/);
    expect(shown.stdout).toMatch(new RegExp(`${a} +ACC-\\d+ +ops@bank-a\\.example +approved +250\\.00`));
    const suspended = await svckitAdmin([
      'accounts',
      'update',
      b.id,
      '--status',
      'suspended',
      '--field',
      'status',
      ...common,
    ]);
    expect(suspended).toMatchObject({ code: 0, stdout: 'suspended\n' });
    const listed = await svckitAdmin(['accounts', 'list', '--status', 'suspended', '--json', ...common]);
    ok(listed);
    expect((JSON.parse(listed.stdout) as { accounts: { id: string }[] }).accounts.map((x) => x.id)).toContain(b.id);

    const key = await svckitAdmin([
      'api-keys',
      'create',
      '--name',
      'bank-a',
      '--permissions',
      'accounts:read,transfers:read',
      '--accounts',
      a,
      ...common,
    ]);
    ok(key);
    const token = /token \(shown once\): (svc_\S+)/.exec(key.stdout)?.[1];
    expect(token).toBeDefined();
    expect((await wallet(target, 'GET', `/accounts/${a}`, token!)).status).toBe(200);
    const id = /^(key_\S+)/m.exec(key.stdout)![1]!;
    const keys = await svckitAdmin(['api-keys', 'list', ...common]);
    ok(keys);
    expect(keys.stdout).toMatch(new RegExp(`${id} +bank-a +accounts:read,transfers:read +${a}`));
    // spec: "the raw token is displayed once at creation and cannot be recovered".
    expect(keys.stdout).not.toContain(token);
    const widened = await svckitAdmin(['api-keys', 'update', id, '--all-accounts', '--json', ...common]);
    ok(widened);
    expect(JSON.parse(widened.stdout)).toMatchObject({ id, accountIds: null });
    expect(await svckitAdmin(['api-keys', 'revoke', id, ...common])).toMatchObject({
      code: 0,
      stdout: `revoked ${id}\n`,
    });
    expect((await wallet(target, 'GET', `/accounts/${a}`, token!)).status).toBe(401);
  });

  it("exits 1 with the server's {error} for bad input, and refuses a non-number before any request", async () => {
    const bad = await svckitAdmin(['accounts', 'fund', 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XB', '1.234', ...common]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^svckit admin: HTTP 400: "amount" expected /);
    const noPermissions = await svckitAdmin(['api-keys', 'create', '--name', 'x', ...common]);
    expect(noPermissions.code).toBe(1);
    expect(noPermissions.stderr).toMatch(/^svckit admin: HTTP 400: "permissions" /);
    const page = await svckitAdmin(['accounts', 'list', '--page', 'two', ...common]);
    // A usage error exits 2, a refusal by the server 1 (main.ts: "svckit uses 2 for every usage or configuration error").
    expect(page.code).toBe(2);
    expect(page.stderr).toContain('expected a whole number, got "two"');
    const missing = await svckitAdmin(['accounts', 'create', '--daily-limit', '1', '--single-limit', '1', ...common]);
    expect(missing).toMatchObject({ code: 2, stderr: "error: required option '--email <email>' not specified\n" });
    const field = await svckitAdmin(['health', '--field', 'nope', ...common]);
    expect(field).toMatchObject({ code: 1, stderr: 'svckit admin: --field nope: the answer has no such field\n' });
  });
});

describe('svckit admin connection defaults (CLI)', () => {
  it('reaches https://<SVC_HOST>:<SVC_BASE_PORT> with SVC_ADMIN_TOKEN and the data directory CA when no option is given', async () => {
    const dataDir = path.join(scratch, 'data');
    mkdirSync(path.join(dataDir, 'tls'), { recursive: true });
    writeFileSync(path.join(dataDir, 'tls', 'ca.pem'), target.caCert!);
    const env = {
      SVC_ADMIN_TOKEN: target.adminToken!,
      SVC_DATA_DIR: dataDir,
      SVC_HOST: target.base!.hostname,
      SVC_BASE_PORT: target.base!.port,
    };
    const health = await svckitAdmin(['health'], env);
    ok(health);
    expect(health.stdout).toMatch(/^ok {2}svckit \S+ {2}chain 1111111 {2}block \d+ {2}database up {2}chain up\n$/);
    const ephemeral = await svckitAdmin(['health'], { ...env, SVC_BASE_PORT: '0' });
    expect(ephemeral).toMatchObject({
      code: 1,
      stderr: 'svckit admin: SVC_BASE_PORT is 0 (an ephemeral port): give --base with the URL the ready line printed\n',
    });
  });
});

describe('svckit admin mldsa-keys, kek, webhooks, payments and qbft (CLI)', () => {
  it('registers and revokes an ML-DSA key and rotates the key-encryption key', async () => {
    const keys = mlDsa65.keygen();
    const registered = await svckitAdmin([
      'mldsa-keys',
      'register',
      '--name',
      'signer',
      '--public-key',
      toHex(keys.publicKey),
      '--permissions',
      'accounts:read',
      '--json',
      ...common,
    ]);
    ok(registered);
    const key = JSON.parse(registered.stdout) as { id: string; fingerprint: string };
    expect(key.id).toMatch(/^mlk_/);
    const listed = await svckitAdmin(['mldsa-keys', 'list', ...common]);
    expect(listed.stdout).toMatch(new RegExp(`${key.id} +signer +accounts:read +all`));
    expect(
      (await svckitAdmin(['mldsa-keys', 'update', key.id, '--name', 'signer-2', '--field', 'name', ...common])).stdout,
    ).toBe('signer-2\n');
    expect(await svckitAdmin(['mldsa-keys', 'revoke', key.id, ...common])).toMatchObject({
      code: 0,
      stdout: `revoked ${key.id}\n`,
    });
    const rotated = await svckitAdmin(['kek', 'rotate', ...common]);
    ok(rotated);
    expect(rotated.stdout).toMatch(/^rotated \S+ -> \S+ at \S+; \d+ keys re-wrapped\n$/);
  });

  it('registers a webhook endpoint, sets a generated and a piped secret without echoing the piped one, lists deliveries and refuses a return', async () => {
    const account = (
      await svckitAdmin([
        'accounts',
        'create',
        '--email',
        'hooks@bank-a.example',
        '--daily-limit',
        '50000',
        '--single-limit',
        '10000',
        '--field',
        'id',
        ...common,
      ])
    ).stdout.trim();
    const created = await svckitAdmin([
      'webhooks',
      'endpoints',
      'create',
      '--url',
      'https://hooks.bank-a.example/svckit',
      '--accounts',
      account,
      '--events',
      'payment.settled,payment.failed',
      '--json',
      ...common,
    ]);
    ok(created);
    const endpoint = JSON.parse(created.stdout) as {
      id: string;
      events: string[];
      accountIds: string[];
      hasSecret: boolean;
    };
    expect(endpoint).toMatchObject({
      events: ['payment.settled', 'payment.failed'],
      accountIds: [account],
      hasSecret: false,
    });
    const generated = await svckitAdmin(['webhooks', 'secret', endpoint.id, '--generate', ...common]);
    ok(generated);
    expect(generated.stdout).toMatch(/\nsecret \(shown once\): whsec_[A-Za-z0-9_-]{43}\n$/);
    const piped = 'whsec_piped_0123456789abcdefghijklmnopqrstuv';
    const fromStdin = await svckitAdmin(
      ['webhooks', 'secret', endpoint.id, '--secret-file', '-', '--grace-period', '60', '--json', ...common],
      {},
      `${piped}\n`,
    );
    ok(fromStdin);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ id: endpoint.id, hasSecret: true });
    expect(fromStdin.stdout + fromStdin.stderr).not.toContain(piped);
    const neither = await svckitAdmin(['webhooks', 'secret', endpoint.id, ...common]);
    expect(neither).toMatchObject({
      code: 1,
      stderr: 'svckit admin: give exactly one of --secret-file and --generate\n',
    });

    const table = await svckitAdmin(['webhooks', 'endpoints', 'list', ...common]);
    expect(table.stdout).toMatch(
      new RegExp(
        `${endpoint.id} +https://hooks\\.bank-a\\.example/svckit +yes +set +payment\\.settled,payment\\.failed +${account}`,
      ),
    );
    expect(
      (
        await svckitAdmin([
          'webhooks',
          'endpoints',
          'update',
          endpoint.id,
          '--disable',
          '--field',
          'enabled',
          ...common,
        ])
      ).stdout,
    ).toBe('false\n');
    expect(
      (await svckitAdmin(['webhooks', 'endpoints', 'get', endpoint.id, '--field', 'enabled', ...common])).stdout,
    ).toBe('false\n');
    const deliveries = await svckitAdmin(['webhooks', 'deliveries', 'list', '--endpoint', endpoint.id, ...common]);
    expect(deliveries).toMatchObject({ code: 0, stdout: '0 deliveries; page 1 (0 shown)\n' });
    const unknown = await svckitAdmin(['webhooks', 'deliveries', 'get', randomUUID(), ...common]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^svckit admin: HTTP 404: /);
    expect(await svckitAdmin(['webhooks', 'endpoints', 'delete', endpoint.id, ...common])).toMatchObject({
      code: 0,
      stdout: `deleted ${endpoint.id}\n`,
    });

    const notPaid = await svckitAdmin(['payments', 'return', randomUUID(), '--reason', 'duplicate', ...common]);
    expect(notPaid.code).toBe(1);
    expect(notPaid.stderr).toMatch(/^svckit admin: HTTP 404: /);
  });

  it('shows the validator set and records a vote', async () => {
    const set = await svckitAdmin(['qbft', 'validators', '--json', ...common]);
    ok(set);
    const validators = JSON.parse(set.stdout) as { validators: string[]; n: number };
    expect(validators.n).toBe(validators.validators.length);
    const candidate = '0x00000000000000000000000000000000000000a1';
    const vote = await svckitAdmin(['qbft', 'votes', 'propose', candidate, '--add', ...common]);
    ok(vote);
    expect(vote.stdout).toMatch(new RegExp(`^proposed to add ${candidate} at \\S+\\n$`, 'i'));
    const votes = await svckitAdmin(['qbft', 'votes', 'list', ...common]);
    expect(votes.stdout.toLowerCase()).toMatch(new RegExp(`${candidate} +add`));
    const both = await svckitAdmin(['qbft', 'votes', 'propose', candidate, ...common]);
    expect(both).toMatchObject({ code: 1, stderr: 'svckit admin: give exactly one of --add and --remove\n' });
  });
});
