// `npm start` runs scripts/build-extension.ts and then `svckit serve`; scripts read the ready line from stdout,
// so the build writes nothing there and `svckit serve` writes exactly one JSON line (src/server/main.ts).
// D-157: with SVC_TLS_ALLOW_CLASSICAL the start announces the relaxed transport on stderr, and only then does a
// classical-only client get in.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from '../../conformance/checks/transport/index.ts';
import { CLASSICAL_TLS_WARNING } from '../../src/server/tls/tls-options.ts';
import { CLASSICAL_RPC_WARNING } from '../../src/server/tls/classical-rpc.ts';
import { openStack, type OpenStack } from '../admin/stack.ts';
import { startServe } from './serve-process.ts';
import { REPO_ROOT } from '../../src/paths.ts';

const CLASSICAL_ONLY = 'X25519:P-256';

describe('npm start output', () => {
  it('every build step npm start runs before svckit serve prints nothing on stdout (its listing goes to stderr)', async () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const steps = scripts.start!.split('&&').map((step) => step.trim());
    expect(steps.at(-1)).toBe('node bin/svckit.js serve');
    const builds = steps.slice(0, -1);
    expect(builds.length).toBeGreaterThan(0);
    for (const step of builds) {
      const script = /^tsx (scripts\/[\w-]+\.ts)$/.exec(step)?.[1];
      expect(script, `a start step this test does not know how to run: ${step}`).toBeDefined();
      const out = mkdtempSync(path.join(tmpdir(), 'svckit-build-'));
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          ['node_modules/tsx/dist/cli.mjs', script!, out],
          { cwd: REPO_ROOT },
        );
        expect(stdout, script).toBe('');
        expect(stderr.trim(), `${script} lists what it built on stderr`).not.toBe('');
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }
  });

  it('svckit serve writes exactly one JSON ready line on stdout; with SVC_TLS_ALLOW_CLASSICAL and SVC_RPC_CLASSICAL_PORT it warns on stderr and lets classical clients in', async () => {
    const served = await startServe({ SVC_TLS_ALLOW_CLASSICAL: 'true', SVC_RPC_CLASSICAL_PORT: '0' });
    const target = { kind: 'url' as const, caCert: readFileSync(served.ready.caCert, 'utf8') };
    const classical = await handshake(target as never, new URL(served.ready.base), { groups: CLASSICAL_ONLY });
    // D-259: the classical listener of /rpc and /ws is named in the ready line.
    const rpcDoor = await handshake(target as never, new URL(served.ready.rpcClassical!), { groups: CLASSICAL_ONLY });
    const { stdout, stderr, code } = await served.stop();
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      event: 'ready',
      base: expect.stringMatching(/^https:\/\//),
      rpcClassical: expect.stringMatching(/^https:\/\//),
      adminToken: expect.stringMatching(/^svcadm_/),
    });
    expect(stderr).toContain(`${CLASSICAL_TLS_WARNING}\n`);
    expect(stderr).toContain(`${CLASSICAL_RPC_WARNING}\n`);
    expect(classical).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
    expect(rpcDoor).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });
});

describe('SVC_TLS_ALLOW_CLASSICAL (D-093, D-157)', () => {
  let stack: OpenStack;
  beforeAll(async () => {
    stack = await openStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('is off by default: a classical-only client fails the handshake on every origin, a hybrid one gets X25519MLKEM768', async () => {
    for (const origin of [stack.target.base!, stack.target.wallet!, stack.target.site!]) {
      expect(await handshake(stack.target, origin, { groups: CLASSICAL_ONLY })).toMatchObject({ ok: false });
      expect(await handshake(stack.target, origin, { groups: 'X25519MLKEM768' })).toMatchObject({
        ok: true,
        group: 'X25519MLKEM768',
      });
    }
  });
});
