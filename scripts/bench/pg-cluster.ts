/**
 * A throw-away PostgreSQL cluster for a benchmark, started the way `npm run test:all` starts the test suite's: initdb
 * and pg_ctl from the newest /usr/lib/postgresql/<version>/bin, run as the postgres user, on a free loopback
 * port, in a temporary folder removed at stop. auto_explain is preloaded so that a benchmark can log the
 * plans of the product's own statements (server log in `logFile`).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A running cluster: its connection URL, its server log and how to stop it. */
export type Cluster = { url: string; logFile: string; stop(): void };

/** A free TCP port on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The bin folder of the newest PostgreSQL installed under /usr/lib/postgresql, or undefined. */
function postgresBin(): string | undefined {
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
    return versions.length ? path.join('/usr/lib/postgresql', versions.at(-1)!, 'bin') : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a cluster (as user postgres when run as root, like `npm run test:all`); throws saying what is missing. */
export async function startCluster(): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL under /usr/lib/postgresql: install postgresql or set DATABASE_URL');
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  const asPostgres = (file: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args], { stdio: 'pipe' });
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=auto_explain`;
  asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', logFile, '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile,
    stop() {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
