// A fresh, migrated database for one test file: PGlite in memory under `npm test`, or a new database on the
// PostgreSQL server of DATABASE_URL under `npm run test:postgres` (dropped after the file's tests).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';

/** Registers the file's beforeAll/afterAll; `database` is open inside the tests. */
export function registerFreshDatabase(prefix: string): { readonly database: OpenDatabase; onPostgres: boolean } {
  const serverUrl = process.env.DATABASE_URL;
  const dbName = `${prefix}_${randomBytes(4).toString('hex')}`;
  let database: OpenDatabase | undefined;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  beforeAll(async () => {
    if (!serverUrl) {
      database = await openDatabase({ dataDir: null });
      return;
    }
    await admin(`CREATE DATABASE "${dbName}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${dbName}`;
    database = await openDatabase({ databaseUrl: url.href, dataDir: null });
  });
  afterAll(async () => {
    await database?.close();
    if (serverUrl) await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  });
  return {
    get database() {
      if (!database) throw new Error('the fresh database opens in beforeAll');
      return database;
    },
    onPostgres: Boolean(serverUrl),
  };
}
