// A real `svckit serve` process on a fresh data directory and free ports, for the tests that check what a user
// sees: its stdout, its stderr, and the README's commands against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/node/anvil.ts';
import { REPO_ROOT } from '../../src/paths.ts';

/** The repository root. */

/** The ready line `svckit serve` prints (src/server/main.ts). */
export type Ready = {
  event: 'ready';
  base: string;
  wallet: string;
  site: string;
  caCert: string;
  /** D-259: only when SVC_RPC_CLASSICAL_PORT is set. */
  rpcClassical?: string;
  adminToken?: string;
};

/** A running server and how to stop it. */
export type ServeProcess = {
  ready: Ready;
  /** The settings it was started with (data directory and ports among them). */
  env: Record<string, string>;
  /** Sends SIGTERM and resolves with everything it wrote and its exit code; removes the data directory. */
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
};

/** Starts `node bin/svckit.js serve` with `env` over fresh SVC_DATA_DIR and ports; resolves at the ready line. */
export async function startServe(env: Record<string, string> = {}, timeoutMs = 90_000): Promise<ServeProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-serve-'));
  const settings: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: String(await freePort()),
    SVC_WALLET_PORT: String(await freePort()),
    SVC_SITE_PORT: String(await freePort()),
    ...env,
  };
  const child: ChildProcess = spawn(process.execPath, ['bin/svckit.js', 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = () => {
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      try {
        resolve(JSON.parse(stdout.slice(0, newline)) as Ready);
      } catch {
        reject(new Error(`the first stdout line is not JSON: ${stdout.slice(0, 400)}`));
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svckit serve exited (${code}) before the ready line; stderr: ${stderr.slice(-2000)}`));
    });
  });
  return {
    ready,
    env: settings,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return { code, stdout, stderr };
    },
  };
}
