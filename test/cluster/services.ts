// The shared services of the cluster tests, each a real process on a free loopback port: a throw-away
// PostgreSQL cluster (initdb under /usr/lib/postgresql/*/bin, run as the postgres user when this runs as root,
// as the PostgreSQL pass of `npm run test:all` does), a Redis server without persistence, and one Anvil that mines nothing
// by itself (the instances' leader seals its blocks, D-183).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { anvilBinary, CHAIN_ID, freePort } from '../../src/node/anvil.ts';
import { Upstream } from '../../src/node/upstream.ts';

/** A running service and how to end it. */
export type Service = { url: string; stop(): Promise<void> };

/** A service that can also be stopped and started again on the same port with the same data (readiness tests). */
export type Restartable = Service & { halt(): Promise<void>; resume(): Promise<void> };

/** Waits for `child` to exit (resolves at once if it has). */
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** Polls `ready` every 100 ms until it resolves true, failing after `timeoutMs`. */
export async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The newest PostgreSQL server binaries the machine has (Debian's postgresql package). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error(`no PostgreSQL under ${root} (apt-get install postgresql)`);
  return path.join(root, versions.at(-1)!, 'bin');
}

/**
 * Runs a PostgreSQL tool, as the postgres user when this process is root (initdb refuses root). Its output
 * goes to no pipe: the server pg_ctl starts inherits it and would keep a pipe open for ever.
 */
function asPostgres(tool: string, args: string[]): void {
  const bin = path.join(postgresBin(), tool);
  const asRoot = userInfo().uid === 0;
  const options = { stdio: 'ignore' as const, timeout: 120_000 };
  const result = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], options)
    : spawnSync(bin, args, options);
  if (result.status !== 0) throw new Error(`${tool} ${args[0] ?? ''} failed (exit ${result.status ?? result.signal})`);
}

/** A fresh PostgreSQL cluster; `url` is the `postgres` database of user postgres (trust on loopback). */
export async function startPostgres(): Promise<Restartable> {
  const data = mkdtempSync(path.join(tmpdir(), 'svckit-cluster-pg-'));
  if (userInfo().uid === 0) {
    const postgres = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    chownSync(data, Number(postgres.stdout.trim()), 0);
  }
  chmodSync(data, 0o700);
  const port = await freePort();
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust']);
  const start = () =>
    asPostgres('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`,
      '-l',
      path.join(data, 'server.log'),
      '-w',
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // Fast shutdown: the server ends every session and stops; its data stays for resume().
    halt: async () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: async () => start(),
    stop: async () => {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    },
  };
}

/** A Redis server without persistence (`--save '' --appendonly no`). */
export async function startRedis(): Promise<Restartable> {
  const port = await freePort();
  const launch = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const failed = new Promise<never>((_, reject) => started.once('error', reject));
    await Promise.race([
      failed,
      waitFor('redis-server', async () => {
        const net = await import('node:net');
        return new Promise<boolean>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => {
            socket.end();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        });
      }),
    ]);
    return started;
  };
  let child = await launch();
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    // Without persistence a restarted Redis starts empty: the shared limits and replay digests start afresh.
    halt: stop,
    resume: async () => {
      child = await launch();
    },
    stop,
  };
}

/**
 * One Anvil at chain 1111111, gas price 0, no development accounts and no mining of its own (`--no-mining`).
 * Its state is kept in a file (`--state`, written when it stops), so resume() starts it again where it was.
 */
export async function startSharedAnvil(): Promise<Restartable & { upstream: Upstream }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-cluster-anvil-'));
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(CHAIN_ID),
    '--gas-price',
    '0',
    '--block-base-fee-per-gas',
    '0',
    '--disable-min-priority-fee',
    '--no-mining',
    '--accounts',
    '0',
    '--state',
    path.join(dir, 'state.json'),
  ];
  const url = `http://127.0.0.1:${port}`;
  const upstream = new Upstream(url);
  const launch = async () => {
    const started = spawn(anvilBinary(), args, { stdio: 'ignore' });
    await waitFor('anvil', async () => Boolean(await upstream.call('eth_chainId')));
    return started;
  };
  let child = await launch();
  const halt = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  return {
    url,
    upstream,
    halt,
    resume: async () => {
      child = await launch();
    },
    // The state file is not needed any more: SIGKILL, which writes none.
    stop: async () => {
      child.kill('SIGKILL');
      await exited(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
