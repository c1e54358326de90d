// One PostgreSQL database that two in-process instances share (PGlite lives inside one process): a fresh
// database on the server of DATABASE_URL when set (the .ci/run PostgreSQL pass), otherwise a throw-away
// cluster of Debian's postgresql on a free loopback port, run as the postgres user, as .ci/run does.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../support/redis.ts';

const PG_ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL bin directory, or undefined. */
function pgBin(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest ? path.join(PG_ROOT, newest, 'bin') : undefined;
}

/** Why no shared database can be had here, or undefined. */
export const postgresMissing: string | undefined = process.env.DATABASE_URL
  ? undefined
  : !pgBin()
    ? 'neither DATABASE_URL nor Debian postgresql (initdb) is available'
    : process.getuid?.() !== 0 || spawnSync('runuser', ['--help']).status !== 0
      ? 'a throw-away PostgreSQL cluster needs root (runuser -u postgres); set DATABASE_URL instead'
      : undefined;

/** A database both instances open; dropped (or the cluster stopped) by `stop`. */
export type SharedDatabase = { url: string; stop(): Promise<void> };

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}

/** A fresh database on `serverUrl`. */
async function freshOn(serverUrl: string, stopServer: () => void): Promise<SharedDatabase> {
  const name = `svckit_redis_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    stop: async () => {
      await admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      stopServer();
    },
  };
}

/** Opens the shared database (see the file comment). */
export async function sharedDatabase(): Promise<SharedDatabase> {
  if (process.env.DATABASE_URL) return freshOn(process.env.DATABASE_URL, () => undefined);
  const bin = pgBin()!;
  const data = mkdtempSync('/tmp/svckit-redis-pg-');
  chownSync(data, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args], { stdio: 'ignore' });
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust']);
  asPostgres('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${data} -c listen_addresses=127.0.0.1`, '-w', 'start']);
  return freshOn(`postgres://postgres@127.0.0.1:${port}/postgres`, () => {
    try {
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
}
