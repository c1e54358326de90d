// The runtime of the `svckit` command (D-228): on a Node without Node 26 and OpenSSL 3.5 it runs itself on the
// `node` dependency's Node 26, and where that is missing it exits 2 saying what to do. The older Node is the
// system's (Debian's Node 20), as on the machine a user starts from.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SVCKIT_BIN } from '../../src/paths.ts';

const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE)
  ? Number(spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.split('.')[0])
  : undefined;
const olderNode = systemMajor !== undefined && systemMajor < 26;
const env = { ...process.env, NODE_OPTIONS: '', SVCKIT_REEXEC: '' };

const alone = mkdtempSync(path.join(tmpdir(), 'svckit-bin-alone-'));
afterAll(() => rmSync(alone, { recursive: true, force: true }));

describe.skipIf(!olderNode)(`bin/svckit.js on the system's Node ${systemMajor ?? '(none)'}`, () => {
  it("runs itself on the node dependency's Node 26", () => {
    const run = spawnSync(SYSTEM_NODE, [SVCKIT_BIN, '--help'], {
      cwd: tmpdir(),
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: svckit');
  });

  it('without that runtime, exits 2 and says what to do', () => {
    // The installed layout (no sources) in a folder with no node_modules above it.
    mkdirSync(path.join(alone, 'bin'));
    copyFileSync(SVCKIT_BIN, path.join(alone, 'bin/svckit.js'));
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(alone, 'package.json'));
    const run = spawnSync(SYSTEM_NODE, [path.join(alone, 'bin/svckit.js'), 'serve'], { env, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `this is Node ${spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()}`,
    );
    expect(run.stderr).toContain('npx -y -p node@26 -p svckit svckit <command>');
    expect(run.stderr).toContain('--ignore-scripts');
  });
});

describe.skipIf(olderNode)('bin/svckit.js on an older Node', () => {
  it.skip(`needs a system Node older than 26 at ${SYSTEM_NODE}; this machine has ${systemMajor ?? 'none'}`, () => {});
});
