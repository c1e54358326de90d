// Rotating the administrator token (D-221): POST /admin/v1/admin-token/rotate and `svckit admin token rotate`.
// The new token is answered once (no-store), the old one is refused at once, a rotation needs the current
// token in its body, two rotations from one token cannot both succeed, and no token reaches the log (the
// stack logs at trace level here, captured from stderr).
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAdminToken } from '../../src/storage/settings.ts';
import { svckitAdmin } from './cli-run.ts';
import { openStack, type OpenStack } from './stack.ts';
import { admin, expectContract } from './support.ts';

const A = 'admin.openapi.yaml';
const OP = 'POST /admin-token/rotate';
const TOKEN = /^svcadm_[A-Za-z0-9_-]{43}$/;

let open: OpenStack;
let ca: string;
/** Everything written to stderr while the stack ran (its log). */
let logged = '';
const write = process.stderr.write.bind(process.stderr);
/** Every token the tests saw, none of which may appear in the log. */
const tokens: string[] = [];

beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logged += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  open = await openStack({}, undefined, 'trace');
  tokens.push(open.target.adminToken!);
  ca = path.join(tmpdir(), `svckit-token-ca-${process.pid}.pem`);
  writeFileSync(ca, open.target.caCert!);
});
afterAll(async () => {
  await open?.close();
  process.stderr.write = write;
});

/** Rotates through the API with the target's token; keeps the new one on the target. */
async function rotate(currentToken = open.target.adminToken!) {
  const res = await admin(open.target, 'POST', '/admin-token/rotate', { currentToken });
  if (res.status === 200) tokens.push((res.json as { token: string }).token);
  return res;
}

const health = (token: string) => admin(open.target, 'GET', '/api-keys', undefined, `Bearer ${token}`);

describe('POST /admin-token/rotate (D-221)', () => {
  it('answers a new token once, not to be stored; the old one is refused at once and the new one accepted', async () => {
    const old = open.target.adminToken!;
    const res = await rotate();
    await expectContract(A, OP, res, 200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { token } = res.json as { token: string };
    expect(token).toMatch(TOKEN);
    expect(token).not.toBe(old);
    expect((await health(old)).status).toBe(401);
    expect((await health(token)).status).toBe(200);
    open.target.adminToken = token;
  });

  it('refuses a currentToken that is not the current token (409) and a malformed one (400) without repeating it', async () => {
    const someone = `svcadm_${'A'.repeat(43)}`;
    const wrong = await rotate(someone);
    await expectContract(A, OP, wrong, 409);
    expect(wrong.json).toMatchObject({ code: 'INVALID_TRANSITION' });
    const nearMiss = `${open.target.adminToken!}x`;
    const malformed = await rotate(nearMiss);
    await expectContract(A, OP, malformed, 400);
    expect(malformed.text).not.toContain(nearMiss.slice(7, 30));
    const extra = await admin(open.target, 'POST', '/admin-token/rotate', {
      currentToken: open.target.adminToken!,
      token: 'x',
    });
    await expectContract(A, OP, extra, 400);
    await expectContract(
      A,
      OP,
      await admin(open.target, 'POST', '/admin-token/rotate', { currentToken: open.target.adminToken! }, null),
      401,
    );
    // Nothing changed.
    expect((await health(open.target.adminToken!)).status).toBe(200);
  });

  it('of two rotations from the same token exactly one succeeds (over the API, and at the database)', async () => {
    const both = await Promise.all([rotate(), rotate()]);
    const won = both.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    // The other was refused: by authentication when the first had already rotated, else by the body's check.
    expect([401, 409]).toContain(both.find((r) => r.status !== 200)!.status);
    const { token } = won[0]!.json as { token: string };
    expect((await health(open.target.adminToken!)).status).toBe(401);
    expect((await health(token)).status).toBe(200);
    // Both past authentication at once: the compare-and-set lets one through.
    const db = open.stack.database.db;
    const racing = await Promise.all([rotateAdminToken(db, token), rotateAdminToken(db, token)]);
    const next = racing.filter((t) => t !== undefined);
    expect(next).toHaveLength(1);
    tokens.push(next[0]!);
    expect((await health(token)).status).toBe(401);
    expect((await health(next[0]!)).status).toBe(200);
    open.target.adminToken = next[0]!;
  });
});

describe('svckit admin token rotate (D-221)', () => {
  it('prints the new token once, says that SVC_ADMIN_TOKEN still holds the old one, and the old one stops working', async () => {
    const old = open.target.adminToken!;
    const run = await svckitAdmin(['token', 'rotate', '--base', open.target.base!.href, '--ca-cert', ca], {
      SVC_ADMIN_TOKEN: old,
    });
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout.match(/svcadm_[A-Za-z0-9_-]{43}/g) ?? [];
    expect(printed).toHaveLength(1);
    const token = printed[0]!;
    tokens.push(token);
    expect(token).not.toBe(old);
    expect(run.stderr).toContain('SVC_ADMIN_TOKEN still holds the previous token');
    expect((await health(old)).status).toBe(401);
    expect((await health(token)).status).toBe(200);
    open.target.adminToken = token;
  });

  it('reads the token from --token-file and prints only the new one with --field token', async () => {
    const file = path.join(tmpdir(), `svckit-token-${process.pid}`);
    writeFileSync(file, `${open.target.adminToken!}\n`, { mode: 0o600 });
    const run = await svckitAdmin([
      'token',
      'rotate',
      '--base',
      open.target.base!.href,
      '--ca-cert',
      ca,
      '--token-file',
      file,
      '--field',
      'token',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(TOKEN);
    tokens.push(run.stdout.trim());
    expect(run.stderr).toContain(`${file} still holds the previous token`);
    expect((await health(run.stdout.trim())).status).toBe(200);
    open.target.adminToken = run.stdout.trim();
  });

  it('no token appeared in the log', () => {
    expect(logged.length).toBeGreaterThan(0);
    for (const token of tokens) expect(logged).not.toContain(token.slice(7));
  });
});
