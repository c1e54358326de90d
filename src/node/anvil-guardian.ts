/**
 * Keeps the embedded chain's history through a crash of the server process. Anvil writes its state file
 * (`--state`) only when it is stopped with SIGTERM; a server that dies without stopping it (SIGKILL, the OOM
 * killer) leaves Anvil running as an orphan with every block since the last start in memory only, and the
 * next start would load the old file and lose them, while the ledger still names those blocks (measured on
 * 2026-11-22: after `kill -9` of `svckit serve`, Anvil kept running and no state file existed).
 *
 * Two parts, both for a persisted chain only:
 * - a guardian process that holds a pipe from the server; when the pipe closes because the server died, it
 *   stops Anvil with SIGTERM, so Anvil writes its state;
 * - a pid file beside the state file; a start that finds the previous Anvil of that file still running waits
 *   for it to write its state and exit (stopping it first) before a new one loads the file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** How long a previous Anvil gets to write its state and exit before it is killed. */
const STATE_WRITE_GRACE_MS = 30_000;

/** The guardian: waits for its stdin to close (the server is gone), then stops Anvil and waits for it. */
const GUARDIAN = `
const pid = Number(process.argv[1]);
const fs = require('node:fs');
const zombie = () => { try { return fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].startsWith('Z'); } catch { return false; } };
const alive = () => { try { process.kill(pid, 0); return !zombie(); } catch { return false; } };
process.stdin.resume();
process.stdin.on('close', () => {
  if (!alive()) process.exit(0);
  process.kill(pid, 'SIGTERM');
  const timer = setInterval(() => { if (!alive()) process.exit(0); }, 50);
  setTimeout(() => { clearInterval(timer); if (alive()) process.kill(pid, 'SIGKILL'); process.exit(0); }, ${STATE_WRITE_GRACE_MS});
});
`;

/** Whether `pid` runs: it exists and, where /proc tells, has not exited and is only waiting to be reaped. */
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true; // no /proc (not Linux): existence is all that can be known
  }
};

/**
 * Whether process `pid` is an Anvil started with `stateFile`. Without /proc (not Linux) it cannot be told
 * from an unrelated process that reused the pid, so it is never signalled; the guardian covers that case.
 */
function isAnvilOf(pid: number, stateFile: string): boolean {
  if (!isAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync(cmdline)) return false;
  const argv = readFileSync(cmdline, 'utf8').split('\0');
  return argv.some((a) => a.endsWith('anvil') || a.endsWith('anvil.exe')) && argv.includes(stateFile);
}

/**
 * Before a new Anvil loads `stateFile`: a previous one still running on it (left by a server that died) is
 * stopped with SIGTERM and awaited, so the file holds its blocks. Says so when it happens.
 */
export async function endPreviousAnvil(stateFile: string): Promise<void> {
  const pidFile = `${stateFile}.pid`;
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && isAnvilOf(pid, stateFile)) {
    console.warn(
      `svckit: the embedded chain of the last run (pid ${pid}) is still running; waiting for it to write ${stateFile}`,
    );
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STATE_WRITE_GRACE_MS;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (isAlive(pid))
      throw new Error(
        `the previous embedded chain (pid ${pid}) did not stop within ${STATE_WRITE_GRACE_MS / 1000} s; stop it, then start again`,
      );
  }
  rmSync(pidFile, { force: true });
}

/** Watches over the Anvil process `pid` that persists to `stateFile`; `release()` on a clean stop. */
export function guardAnvil(pid: number, stateFile: string): { release(): void } {
  writeFileSync(`${stateFile}.pid`, `${pid}\n`);
  const guardian: ChildProcess = spawn(process.execPath, ['-e', GUARDIAN, String(pid)], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  // Neither the guardian nor its pipe keeps the server's event loop alive.
  guardian.unref();
  (guardian.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    release() {
      guardian.kill();
      rmSync(`${stateFile}.pid`, { force: true });
    },
  };
}
