// A persisted embedded chain keeps its blocks when the server process dies without stopping it (src/node/
// anvil-guardian.ts). A real child process starts Anvil on a state file, mines, and is killed with SIGKILL;
// the next start on that file must see every block, and no Anvil of the dead process may be left running.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startAnvil } from '../../src/node/anvil.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-anvil-crash-'));
const stateFile = path.join(dir, 'anvil-state.json');

/** Pids of running processes whose command line names the state file (Linux /proc). */
function anvilsOnStateFile(): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return argv.some((a) => a.endsWith('/anvil')) && argv.includes(stateFile);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Server stand-ins still running (only when a test failed half-way). */
const children = new Set<ReturnType<typeof spawn>>();

afterAll(() => {
  // Only when a test failed half-way: nothing of it may outlive the file.
  for (const child of children) child.kill('SIGKILL');
  for (const pid of anvilsOnStateFile()) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const rpc = async (url: string, method: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: string }).result;
};

/** The server stand-in: starts the persisted chain, mines `blocks` blocks, reports, and waits to be killed. */
const CHILD = `
const { startAnvil } = await import(${JSON.stringify(path.resolve('src/node/anvil.ts'))});
const anvil = await startAnvil({ stateFile: process.argv[1] });
const call = (method) => fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) }).then((r) => r.json());
for (let i = 0; i < 3; i++) await call('evm_mine');
console.log(JSON.stringify({ head: (await call('eth_blockNumber')).result }));
setInterval(() => undefined, 1000);
`;

/** Starts the server stand-in and waits until it has mined; returns the child process. */
async function serverThatMined() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, stateFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  expect(JSON.parse(first.value as string)).toEqual({ head: '0x3' });
  expect(anvilsOnStateFile()).toHaveLength(1);
  return child;
}

/** SIGKILLs the server stand-in and waits until it is gone. */
async function killHard(child: ReturnType<typeof spawn>) {
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Whether `pid` runs (exists and is not a zombie; Linux /proc). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};

/** The direct children of `pid` (Linux /proc). */
const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);

/** A start on the state file sees the three blocks; after its stop no Anvil on the file is left. */
async function restartSeesTheBlocks() {
  const anvil = await startAnvil({ stateFile });
  try {
    expect(await rpc(anvil.url, 'eth_blockNumber')).toBe('0x3');
    expect(anvilsOnStateFile()).toHaveLength(1); // the new one only
  } finally {
    await anvil.stop();
  }
  expect(anvilsOnStateFile()).toEqual([]);
  expect(existsSync(`${stateFile}.pid`)).toBe(false);
}

describe.skipIf(!existsSync('/proc/self/cmdline'))('a persisted embedded chain', () => {
  it('is stopped by its guardian, writing its state, when the process that started it is killed with SIGKILL', async () => {
    rmSync(stateFile, { force: true });
    await killHard(await serverThatMined());
    await vi.waitFor(() => expect(anvilsOnStateFile()).toEqual([]), { timeout: 10_000 });
    expect(existsSync(stateFile)).toBe(true);
    await restartSeesTheBlocks();
  });

  it('when the guardian died too, the next start stops the old Anvil and waits for its state before loading it', async () => {
    rmSync(stateFile, { force: true });
    const child = await serverThatMined();
    const guardian = childrenOf(child.pid!).filter((pid) => !anvilsOnStateFile().includes(pid));
    expect(guardian).toHaveLength(1);
    process.kill(guardian[0]!, 'SIGKILL');
    await killHard(child);
    // The guardian's SIGKILL takes effect asynchronously: wait until it is gone (or a zombie) before looking.
    await vi.waitFor(() => expect(alive(guardian[0]!)).toBe(false), { timeout: 10_000, interval: 10 });
    expect(anvilsOnStateFile()).toHaveLength(1); // orphaned, its blocks in memory only
    expect(existsSync(stateFile)).toBe(false);
    await restartSeesTheBlocks();
  });
});
