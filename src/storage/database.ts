/**
 * Opens the database: embedded PGlite in the data directory by default, PostgreSQL when DATABASE_URL is
 * set. Both run the same migrations (src/storage/migrations) through Drizzle.
 */
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { repoPath } from '../paths.ts';
import { drizzleClientOf } from './pglite-client.ts';
import { PgliteThread } from './pglite-thread.ts';
import { ensurePrivateDir } from './private-dir.ts';
import { migratedTemplate } from './pglite-template.ts';
import * as schema from './schema.ts';

/** The Drizzle handle every store uses, whichever engine is behind it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database and how to close it. */
export type OpenDatabase = { db: Database; engine: 'pglite' | 'postgres'; close(): Promise<void> };

const migrationsFolder = repoPath('src/storage/migrations');

/** Opens and migrates the database. `dataDir` null keeps PGlite in memory (tests). */
export async function openDatabase(options: { databaseUrl?: string; dataDir: string | null }): Promise<OpenDatabase> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // The server may end idle connections (restart, failover, a dropped database). pg reports that on the
    // pool; without a listener Node would treat it as an uncaught error and stop. The next query reconnects.
    pool.on('error', (error) =>
      console.warn(`svckit: idle PostgreSQL connection closed by the server: ${error.message}`),
    );
    const db = drizzlePostgres(pool, { schema });
    await migratePostgres(db, { migrationsFolder });
    return { db: db as unknown as Database, engine: 'postgres', close: () => pool.end() };
  }
  // PGlite runs on a worker thread of its own (pglite-thread.ts): off the thread that serves requests.
  let client: PgliteThread;
  if (options.dataDir === null) {
    const template = await migratedTemplate(migrationsFolder, (fresh) =>
      migratePglite(drizzlePglite({ client: drizzleClientOf(fresh) as PGlite, schema }), { migrationsFolder }),
    );
    client = await PgliteThread.open({ loadDataDir: template });
  } else {
    const dir = path.join(options.dataDir, 'pglite');
    // D-149: the database files are private to the server's user.
    ensurePrivateDir(dir);
    client = await PgliteThread.open({ dataDir: dir });
  }
  const db = drizzlePglite({ client: client as unknown as PGlite, schema });
  await migratePglite(db, { migrationsFolder });
  return { db: db as unknown as Database, engine: 'pglite', close: () => client.close() };
}
