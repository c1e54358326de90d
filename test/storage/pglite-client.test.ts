// The PGlite client adapter (src/storage/pglite-client.ts) installs drizzle-orm's text parsers once and
// drops them from each query. These tests fail if drizzle-orm changes the parsers it sends, or if rows read
// through the adapter differ from rows read with drizzle's own per-query parsers.
import { types } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { DRIZZLE_TEXT_PARSERS, drizzleClientOf, openPglite } from '../../src/storage/pglite-client.ts';

const seen: unknown[] = [];
const spy = await openPglite();
afterAll(() => spy.close());

describe('PGlite client adapter', () => {
  it("installs exactly the parsers drizzle-orm's PGlite driver sends with its queries", async () => {
    // A client that records the options drizzle passes, in and out of a transaction.
    const recording = {
      query: (text: string, params: unknown[], options: unknown) => {
        seen.push(options);
        return spy.query(text, params, options as never);
      },
      transaction: (fn: (tx: unknown) => Promise<unknown>) =>
        spy.transaction((tx) =>
          fn({
            ...tx,
            query: (t: string, p: unknown[], o: unknown) => {
              seen.push(o);
              return tx.query(t, p, o as never);
            },
          }),
        ),
    };
    const db = drizzle({ client: recording as never });
    await db.execute(sql`select 1`);
    await db.select({ one: sql`1` }).from(sql`(select 1) as t`);
    await db.transaction((tx) => tx.execute(sql`select 1`));
    expect(seen.length).toBe(3);
    for (const options of seen as { parsers: Record<number, unknown> }[]) {
      expect(Object.keys(options.parsers).map(Number).sort()).toEqual(
        Object.keys(DRIZZLE_TEXT_PARSERS).map(Number).sort(),
      );
    }
    expect(Object.keys(DRIZZLE_TEXT_PARSERS).map(Number)).toEqual(
      expect.arrayContaining([types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE]),
    );
  });

  it('reads the same rows as per-query parsers, inside and outside a transaction', async () => {
    const plain = drizzle({ client: spy });
    const adapted = drizzle({ client: drizzleClientOf(spy) as never });
    const query = sql`select now()::timestamptz as at, '2026-11-21'::date as day, interval '1 day' as span, 1.5::numeric as n, array['2026-01-01'::date] as days, '{"a":1}'::jsonb as doc`;
    const expected = (await plain.execute(query)).rows;
    expect(typeof expected[0]!.at).toBe('string');
    expect((await adapted.execute(query)).rows).toEqual(expected.map((row) => ({ ...row, at: expect.any(String) })));
    expect(
      await adapted.transaction(async (tx) => (await tx.execute(sql`select '2026-11-21'::date as day`)).rows),
    ).toEqual([{ day: '2026-11-21' }]);
  });

  it('rolls a failed transaction back through the adapter', async () => {
    const adapted = drizzle({ client: drizzleClientOf(spy) as never });
    await adapted.execute(sql`create table if not exists adapter_probe (id int primary key)`);
    await expect(
      adapted.transaction(async (tx) => {
        await tx.execute(sql`insert into adapter_probe values (1)`);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await adapted.execute(sql`select count(*)::int as n from adapter_probe`)).rows).toEqual([{ n: 0 }]);
  });
});
