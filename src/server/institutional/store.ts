/** Queries of the institutional API: statements and transfer lists (D-010, D-025, D-054). */
import { and, count, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { accounts, transfers } from '../../storage/schema.ts';
import type { TransferRow } from '../../ledger/transfers/engine.ts';

/** One page of rows and the total count. */
export type Page<T> = { total: number; rows: T[] };

/** Transfers where the account sent (out) or received (in), newest first — the account's statement. */
export async function statementPage(
  db: Database,
  account: { id: string; address: string },
  page: number,
  limit: number,
): Promise<Page<TransferRow>> {
  const where = or(eq(transfers.accountId, account.id), eq(transfers.toAddress, account.address));
  return pageOf(db, where, page, limit);
}

/** Transfers (kind transfer) involving `accountIds` (null: every account), newest first. */
export async function transferPage(
  db: Database,
  accountIds: string[] | null,
  page: number,
  limit: number,
): Promise<Page<TransferRow>> {
  let where: SQL | undefined = eq(transfers.kind, 'transfer');
  if (accountIds !== null) {
    const ids = accountIds.length ? accountIds : [''];
    const addresses = db.select({ address: accounts.address }).from(accounts).where(inArray(accounts.id, ids));
    // ARRAY(subquery) is computed once, so both sides of the OR use their index; `IN (subquery)` inside an OR
    // made PostgreSQL scan the whole table (D-179).
    where = and(where, or(inArray(transfers.accountId, ids), sql`${transfers.toAddress} = ANY(ARRAY(${addresses}))`));
  }
  return pageOf(db, where, page, limit);
}

async function pageOf(db: Database, where: SQL | undefined, page: number, limit: number): Promise<Page<TransferRow>> {
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(transfers).where(where);
  const rows = await db
    .select()
    .from(transfers)
    .where(where)
    .orderBy(desc(transfers.createdAt), desc(transfers.txRef))
    .limit(limit)
    .offset((page - 1) * limit);
  return { total, rows };
}

/** The transfer with reference `txRef`. */
export async function findTransfer(db: Database, txRef: string): Promise<TransferRow | undefined> {
  const [row] = await db.select().from(transfers).where(eq(transfers.txRef, txRef));
  return row;
}
