// `svckit serve` keeps serving when a promise rejection escapes every listener: the rejection is logged by
// name and message and the process lives on (by default Node ends the process, and every origin with it).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** A process that installs the guard (or not), lets one rejection escape, then says it is still alive. */
const child = (guarded: boolean) => `
const { guardUnhandledRejections } = await import(${JSON.stringify(path.resolve('src/server/main.ts'))});
if (${guarded}) guardUnhandledRejections();
void Promise.reject(new TypeError('a listener failed'));
setTimeout(() => console.log('still serving'), 100);
`;

function run(guarded: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child(guarded)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    proc.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the process guard of svckit serve', () => {
  it('logs an escaped rejection and keeps the process alive; without it the process ends', async () => {
    const guarded = await run(true);
    expect(guarded.code).toBe(0);
    expect(guarded.stdout).toContain('still serving');
    expect(guarded.stderr).toContain(
      'unhandled promise rejection was caught and the service keeps serving: TypeError: a listener failed',
    );
    const unguarded = await run(false);
    expect(unguarded.code).not.toBe(0);
    expect(unguarded.stdout).not.toContain('still serving');
  });
});
