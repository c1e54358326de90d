// `svckit admin chain-accounts add|list|remove` (D-152) as a separate process against the in-process
// reference stack over real HTTPS: the token from SVC_ADMIN_TOKEN or --token, the CA from --ca-cert or the
// data directory, a table or --json, and a non-zero exit with the server's {error} on failure.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { REPO_ROOT } from '../../src/paths.ts';

let target: Target;
const scratch = mkdtempSync(path.join(tmpdir(), 'svckit-admin-cli-'));
const ca = path.join(scratch, 'ca.pem');
beforeAll(async () => {
  target = await sharedReferenceTarget();
  writeFileSync(ca, target.caCert!);
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
});

type Run = { code: number; stdout: string; stderr: string };
async function svckit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const run = promisify(execFile)(process.execPath, ['bin/svckit.js', 'admin', 'chain-accounts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, SVC_ADMIN_TOKEN: '', SVC_DATA_DIR: path.join(scratch, 'none'), ...env },
  });
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

describe('svckit admin chain-accounts (CLI)', () => {
  it('adds and funds an address, lists it as a table and as JSON, and removes it', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const common = ['--base', target.base!.href, '--ca-cert', ca];
    const added = await svckit(['add', address, '--amount', '25.00', ...common], {
      SVC_ADMIN_TOKEN: target.adminToken!,
    });
    expect(added, added.stderr).toMatchObject({ code: 0 });
    expect(added.stdout).toMatch(
      new RegExp(`^allowed ${address} \\(external\\); funded 25\\.00 in 0x[0-9a-f]{64}; balance 25\\.00`),
    );

    const table = await svckit(['list', ...common, '--token', target.adminToken!]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^funding account 0x[0-9a-fA-F]{40}\n\d+ allowed; page 1/);
    expect(table.stdout).toContain(`${address}  external`);

    const json = await svckit(['list', ...common, '--token', target.adminToken!, '--json']);
    expect(JSON.parse(json.stdout).accounts).toContainEqual(expect.objectContaining({ address, reason: 'external' }));

    const removed = await svckit(['remove', address, ...common, '--token', target.adminToken!]);
    expect(removed).toMatchObject({ code: 0, stdout: `removed ${address}\n` });
  });

  it("exits non-zero with the server's {error} when the server refuses, and finds the CA in the data directory", async () => {
    const dataDir = path.join(scratch, 'data');
    mkdirSync(path.join(dataDir, 'tls'), { recursive: true });
    writeFileSync(path.join(dataDir, 'tls', 'ca.pem'), target.caCert!);
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const refused = await svckit(['remove', address, '--base', target.base!.href], {
      SVC_ADMIN_TOKEN: target.adminToken!,
      SVC_DATA_DIR: dataDir,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`svckit admin: HTTP 404: ${address} is not on the allow-list (NOT_FOUND)\n`);

    const unauthorized = await svckit([
      'list',
      '--base',
      target.base!.href,
      '--ca-cert',
      ca,
      '--token',
      'svcadm_wrong',
    ]);
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toMatch(/^svckit admin: HTTP 401: /);

    const noToken = await svckit(['list', '--base', target.base!.href, '--ca-cert', ca]);
    expect(noToken).toMatchObject({
      code: 1,
      stderr: 'svckit admin: an administrator token is needed: --token-file, SVC_ADMIN_TOKEN or --token\n',
    });
  });
});
