// PGlite by default and PostgreSQL when DATABASE_URL is set, with one
// schema and one set of migrations. `npm test` runs this on PGlite; `npm run test:all` runs it again on PostgreSQL.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, apiKeys, settings, transfers } from '../../src/storage/schema.ts';
import { registerFreshDatabase } from './fresh-database.ts';

const fresh = registerFreshDatabase('svckit_storage');

describe(`storage on ${fresh.onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  it('runs on the engine the settings ask for', () => {
    expect(fresh.database.engine).toBe(fresh.onPostgres ? 'postgres' : 'pglite');
  });

  it('applies every migration: all tables of the schema exist', async () => {
    const result = await fresh.database.db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    const tables = (result as unknown as { rows: { table_name: string }[] }).rows.map((r) => r.table_name);
    for (const table of [
      'accounts',
      'api_keys',
      'mldsa_keys',
      'settings',
      'transfers',
      'idempotency_keys',
      'qbft_validator_sets',
      'chain_allowlist',
    ]) {
      expect(tables).toContain(table);
    }
  });

  it('round-trips bytea, numeric(78,0) wei and jsonb exactly', async () => {
    const key = new Uint8Array(randomBytes(48));
    const wei = (2n ** 200n + 12345n).toString();
    await fresh.database.db.insert(accounts).values({
      id: 'acc_STORAGETEST0000000000000000'.slice(0, 30),
      reference: 'ACC-9900000001',
      email: 'storage@example.com',
      status: 'approved',
      dailyLimitWei: wei,
      singleLimitWei: '1',
      address: '0x000000000000000000000000000000000000dEaD',
      chainKeyCiphertext: key,
      mlkemPublicKey: key,
      mlkemSecretCiphertext: key,
      wrappedDek: key,
      kekId: 'kek_TEST',
      nextNonce: 0,
      createdAt: new Date(),
    });
    const [row] = await fresh.database.db.select().from(accounts).where(eq(accounts.reference, 'ACC-9900000001'));
    expect(Buffer.from(row!.chainKeyCiphertext).equals(Buffer.from(key))).toBe(true);
    expect(row!.dailyLimitWei).toBe(wei);
    await fresh.database.db.insert(apiKeys).values({
      id: 'key_STORAGE',
      name: 'n',
      tokenSha256: 'x'.repeat(64),
      tokenPrefix: 'svc_',
      permissions: ['accounts:read'],
      accountIds: null,
      createdAt: new Date(),
    });
    const [key1] = await fresh.database.db.select().from(apiKeys).where(eq(apiKeys.id, 'key_STORAGE'));
    expect(key1!.permissions).toEqual(['accounts:read']);
    expect(key1!.accountIds).toBeNull();
  });

  it('supports the row locks the transfer engine and the webhook dispatcher rely on', async () => {
    await fresh.database.db.insert(settings).values({ key: 'lock-test', value: '1' });
    const locked = await fresh.database.db.transaction(async (tx) =>
      tx.select().from(settings).where(eq(settings.key, 'lock-test')).for('update', { skipLocked: true }),
    );
    expect(locked).toHaveLength(1);
    expect(await fresh.database.db.select().from(transfers)).toEqual([]);
  });
});
