// `svckit replay` with a case file from elsewhere (D-223): a case whose request is not its operation's is
// refused and nothing is sent (against the real reference stack: a crafted case does not revoke an API
// key); the request is printed first; it is sent only after a yes on a terminal (a pty from `script`) or
// with --yes; without a terminal and without --yes nothing is sent. The credential comes from
// SVC_REPLAY_AUTHORIZATION or --authorization-file as well as from the flag (D-222).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareReplay, readCaseFile } from '../../conformance/engine/openapi/replay.ts';
import { harRecorder } from '../../conformance/report/stream.ts';
import { REPO_ROOT, SVCKIT_BIN } from '../../src/paths.ts';
import { openStack, type OpenStack } from '../admin/stack.ts';
import { admin } from '../admin/support.ts';

type Run = { code: number; stdout: string; stderr: string };

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-replay-'));
/** Requests the local deployment received: method, path and Authorization. */
const received: { method: string; url: string; authorization?: string }[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push({
      method: req.method!,
      url: req.url!,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such block","code":"NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a case file; `overrides` change the case's fields. */
function caseFile(name: string, overrides: Record<string, unknown> = {}): string {
  const file = path.join(dir, `${name}.json`);
  const c = {
    surface: 'explorer',
    operation: 'GET /block/{id}',
    phase: 'coverage',
    kind: 'positive',
    reason: 'a valid input',
    input: { params: { 'path:id': '12' } },
    method: 'GET',
    authenticated: true,
    ...overrides,
  };
  const request = { method: c.method, url: 'https://elsewhere.example/api/block/12', headers: {} };
  writeFileSync(
    file,
    JSON.stringify({
      kind: 'svckit-conformance-case',
      check: 'generated.status_code_conformance',
      message: 'x',
      case: c,
      request,
    }),
  );
  return file;
}

/** `svckit replay <args>` as its own process, stdin a pipe (no terminal). */
function replay(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [SVCKIT_BIN, 'replay', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, SVC_REPLAY_AUTHORIZATION: '', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** `svckit replay <args>` on a pseudo-terminal (`script`), answering `answer` once the question is asked. */
function replayOnTerminal(args: string[], answer: string): Promise<Run> {
  const line = [process.execPath, SVCKIT_BIN, 'replay', ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { ...process.env, SVC_REPLAY_AUTHORIZATION: '' },
    });
    let stdout = '';
    let asked = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (!asked && stdout.includes('Send this request? [y/N]')) {
        asked = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr: '' }));
  });
}

describe('svckit replay refuses a case whose request is not its operation (D-223)', () => {
  it('a method the operation does not have, a path parameter that leaves the route, an undocumented method the path documents', () => {
    const refusal = (name: string, overrides: Record<string, unknown>) => {
      try {
        prepareReplay(readCaseFile(caseFile(name, overrides)), { base: new URL(base) });
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal('method', { method: 'DELETE' })).toBe(
      'refusing to send the case: the case sends DELETE but its operation is GET /block/{id}',
    );
    expect(refusal('dots', { input: { params: { 'path:id': '..' } } })).toMatch(
      /^refusing to send the case: the case's path parameter "id" is "\.\."/,
    );
    expect(
      refusal('unsupported', {
        surface: 'admin',
        operation: 'PATCH /api-keys/{id}',
        kind: 'unsupported_method',
        method: 'DELETE',
        input: { params: { 'path:id': 'key_1' } },
      }),
    ).toBe(
      'refusing to send the case: the case sends DELETE as an undocumented method, but /api-keys/{id} documents DELETE',
    );
    expect(refusal('unknown', { operation: 'DELETE /block/{id}' })).toBe(
      'the explorer contract has no operation DELETE /block/{id}',
    );
    expect(() => readCaseFile(caseFile('shape', { input: { params: { 'path:id': 12 } } }))).toThrow(
      /lacks a field or has one of the wrong type/,
    );
    // The engine's own cases pass: the operation's method, and a method the path does not document.
    expect(refusal('own', {})).toBeUndefined();
    expect(refusal('405', { kind: 'unsupported_method', method: 'PATCH' })).toBeUndefined();
  });

  describe('against the reference stack', () => {
    let open: OpenStack;
    beforeAll(async () => {
      open = await openStack();
    });
    afterAll(async () => {
      await open?.close();
    });

    it('a "failing case" naming PATCH /api-keys/{id} but sending DELETE revokes nothing', async () => {
      const created = (await admin(open.target, 'POST', '/api-keys', { name: 'kept', permissions: ['accounts:read'] }))
        .json as { id: string };
      const ca = path.join(dir, 'ca.pem');
      writeFileSync(ca, open.target.caCert!);
      const file = caseFile('revoke', {
        surface: 'admin',
        operation: 'PATCH /api-keys/{id}',
        method: 'DELETE',
        input: { params: { 'path:id': created.id } },
      });
      const run = await replay([file, '--base', open.target.base!.href, '--ca-cert', ca, '--yes'], {
        SVC_REPLAY_AUTHORIZATION: `Bearer ${open.target.adminToken!}`,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('the case sends DELETE but its operation is PATCH /api-keys/{id}');
      const { apiKeys } = (await admin(open.target, 'GET', '/api-keys')).json as {
        apiKeys: { id: string; revokedAt?: string | null }[];
      };
      const listed = apiKeys.find((k) => k.id === created.id);
      expect(listed).toBeDefined();
      expect(listed!.revokedAt ?? null).toBeNull();
    });
  });
});

describe('svckit replay prints the request and asks before sending it (D-223)', () => {
  it('without a terminal and without --yes it prints the request (credential from SVC_REPLAY_AUTHORIZATION) and sends nothing', async () => {
    const before = received.length;
    const run = await replay([caseFile('quiet'), '--base', base], { SVC_REPLAY_AUTHORIZATION: 'Bearer from-env' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain(`GET ${base}api/block/12`);
    expect(run.stdout).toContain('authorization: <your --authorization credential>');
    expect(run.stdout).not.toContain('from-env');
    expect(run.stderr).toContain('not sent: no terminal to confirm on; give --yes');
    expect(received.length).toBe(before);
  });

  it('with --yes it sends, with the credential from --authorization-file', async () => {
    const before = received.length;
    const secret = path.join(dir, 'authorization');
    writeFileSync(secret, 'Bearer from-file\n');
    const run = await replay([caseFile('yes'), '--base', base, '--yes', '--authorization-file', secret], {
      SVC_REPLAY_AUTHORIZATION: 'Bearer from-env',
    });
    expect([0, 1], run.stderr).toContain(run.code);
    expect(run.stdout).toContain('HTTP 404');
    expect(received.slice(before)).toEqual([
      { method: 'GET', url: '/api/block/12', authorization: 'Bearer from-file' },
    ]);
  });

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal it sends after a yes and not after a no', async () => {
    const before = received.length;
    const no = await replayOnTerminal([caseFile('ask-no'), '--base', base], 'n');
    expect(no.code, no.stdout).toBe(2);
    expect(no.stdout).toContain('not sent');
    expect(received.length).toBe(before);
    const yes = await replayOnTerminal([caseFile('ask-yes'), '--base', base], 'y');
    expect([0, 1], yes.stdout).toContain(yes.code);
    expect(yes.stdout).toContain('HTTP 404');
    expect(received.slice(before)).toEqual([{ method: 'GET', url: '/api/block/12' }]);
  });
});

describe('svckit replay of a HAR entry (D-232, D-223)', () => {
  /** A HAR file of two exchanges, recorded against another host; credentials already redacted. */
  function harFile(name: string): string {
    const file = path.join(dir, `${name}.har`);
    const recorder = harRecorder(file, 'test');
    const at = '2026-11-27T10:00:00.000Z';
    const exchange = (url: string, method: string, body?: string) =>
      recorder.sink({
        type: 'case_sent',
        at,
        n: 1,
        source: 'generated',
        durationMs: 3,
        rateLimited: false,
        request: {
          method,
          url,
          headers: { authorization: 'Bearer svc_secretsecretsecret', accept: 'application/json' },
          ...(body ? { body } : {}),
        },
        response: { status: 404, headers: {}, body: '{"error":"no such block"}' },
      });
    exchange('https://elsewhere.example/api/block/12', 'GET');
    exchange('https://elsewhere.example/admin/v1/api-keys', 'POST', '{"name":"k","token":"svc_secret"}');
    exchange('https://elsewhere.example/not/an/operation', 'GET');
    recorder.write();
    return file;
  }

  it('sends entry 1 to --base with the operator credential and says the answer has the recorded status', async () => {
    const file = harFile('run');
    received.length = 0;
    const run = await replay([file, '--entry', '1', '--base', base, '--yes', '--authorization', 'Bearer mine']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('explorer GET /block/{id}, recorded answer HTTP 404');
    expect(run.stdout).toContain('SAME: recorded HTTP 404, now HTTP 404');
    expect(received).toEqual([{ method: 'GET', url: '/api/block/12', authorization: 'Bearer mine' }]);
  });

  it('refuses an entry that is no operation, a body whose secrets were redacted, and an entry out of range', async () => {
    const file = harFile('refused');
    received.length = 0;
    for (const [entry, message] of [
      ['3', /GET \/not\/an\/operation is no operation of the contracts/],
      ['2', /its body had secret fields, redacted/],
      ['9', /has 3 entries; "--entry" expected 1 to 3, got 9/],
    ] as const) {
      const run = await replay([file, '--entry', entry, '--base', base, '--yes']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(received).toEqual([]);
  });
});
