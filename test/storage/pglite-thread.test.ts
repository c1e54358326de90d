// PGlite on its worker thread (src/storage/pglite-thread.ts) must behave as PGlite in-process does, seen
// through drizzle-orm: the same rows, transactions that commit or roll back, other queries waiting while a
// transaction is open, PostgreSQL's error fields, a clear error once the thread is gone, and an idle
// database that does not keep the process alive.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { drizzleClientOf, openPglite } from '../../src/storage/pglite-client.ts';
import { PgliteThread } from '../../src/storage/pglite-thread.ts';
import { isUniqueViolation } from '../../src/storage/errors.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-pglite-thread-'));
const thread = await PgliteThread.open({ dataDir });
const inProcess = await openPglite();
afterAll(async () => {
  await thread.close();
  await inProcess.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const db = drizzle({ client: thread as never });

describe('PGlite on a worker thread', () => {
  it('answers with the same rows as PGlite in this thread, for the types the schema uses', async () => {
    const query = sql`select now()::timestamptz as at, '2026-11-21'::date as day, 123456789012345678901234567890::numeric(78,0) as wei,
      9007199254740993::bigint as big, 42::int as n, true as yes, null::text as nothing, '\\x00ff10'::bytea as bytes,
      '{"a":[1,"b"]}'::jsonb as doc, array['x','y'] as list`;
    const here = (await drizzle({ client: drizzleClientOf(inProcess) as never }).execute(query)).rows;
    const there = (await db.execute(query)).rows;
    expect(there).toEqual(here.map((row) => ({ ...row, at: expect.any(String) })));
    expect(there[0]!.bytes).toBeInstanceOf(Uint8Array);
  });

  it('commits, rolls back, and makes other queries wait while a transaction is open', async () => {
    await db.execute(sql`create table thread_probe (id int primary key)`);
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (1)`);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`insert into thread_probe values (2)`);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (3)`);
      outside = db.execute(sql`select count(*)::int as n from thread_probe`).then((r) => {
        order.push('outside');
        return r.rows;
      });
      // Round trips inside the transaction, sent after the outside query: one that were not held back until
      // the commit would be answered first, in the worker's order of arrival.
      for (let i = 0; i < 3; i++) await tx.execute(sql`select 1`);
      order.push('commit');
    });
    // The outside query ran after the commit, so it saw row 3 as well.
    expect(await outside).toEqual([{ n: 2 }]);
    expect(order).toEqual(['commit', 'outside']);
    expect((await db.execute(sql`select id from thread_probe order by id`)).rows).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it("keeps PostgreSQL's error fields on the error", async () => {
    const error = await db.execute(sql`insert into thread_probe values (1)`).catch((e: unknown) => e);
    expect(isUniqueViolation(error, 'thread_probe_pkey')).toBe(true);
    const syntax = (await db.execute(sql`selec 1`).then(
      () => undefined,
      (e: unknown) => e,
    )) as { cause?: { code?: string } } | undefined;
    expect(syntax?.cause?.code).toBe('42601');
  });

  it('reports a stopped thread on every later query', async () => {
    const stopped = await PgliteThread.open({ dataDir: mkdtempSync(path.join(tmpdir(), 'svckit-pglite-stopped-')) });
    await stopped.close();
    await expect(stopped.query('select 1')).rejects.toThrow(/PGlite worker thread exited/);
  });

  it('does not keep a process alive once its queries are answered', async () => {
    // A child process opens a database, queries it and never closes it: it must still exit by itself.
    const script = path.join(dataDir, 'child.mts');
    writeFileSync(
      script,
      `
      import { PgliteThread } from ${JSON.stringify(path.resolve('src/storage/pglite-thread.ts'))};
      const thread = await PgliteThread.open({ dataDir: ${JSON.stringify(path.join(dataDir, 'child'))} });
      console.log(JSON.stringify((await thread.query('select 7 as seven')).rows));`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual([{ seven: 7 }]);
  });
});
