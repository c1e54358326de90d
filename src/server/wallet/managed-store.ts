/** Queries of the managed-account tier (D-127): one account, hence at most one sealed share, per identity. */
import { eq, or } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletManagedAccounts } from '../../storage/schema.ts';

/** A stored managed account. */
export type ManagedRow = typeof walletManagedAccounts.$inferSelect;

/** Stores a new account; false when the svcId or the email already has one (nothing is replaced). */
export async function insertManagedAccount(db: Database, row: ManagedRow): Promise<boolean> {
  const inserted = await db
    .insert(walletManagedAccounts)
    .values(row)
    .onConflictDoNothing()
    .returning({ svcId: walletManagedAccounts.svcId });
  return inserted.length > 0;
}

/** The account of a normalised email, if any. */
export async function managedByEmail(db: Database, email: string): Promise<ManagedRow | undefined> {
  const [row] = await db.select().from(walletManagedAccounts).where(eq(walletManagedAccounts.email, email));
  return row;
}

/** The account of an identity, if any. */
export async function managedBySvcId(db: Database, svcId: string): Promise<ManagedRow | undefined> {
  const [row] = await db.select().from(walletManagedAccounts).where(eq(walletManagedAccounts.svcId, svcId));
  return row;
}

/** True when the svcId or the email has an account. */
export async function managedExists(db: Database, svcId: string, email: string): Promise<boolean> {
  const rows = await db
    .select({ svcId: walletManagedAccounts.svcId })
    .from(walletManagedAccounts)
    .where(or(eq(walletManagedAccounts.svcId, svcId), eq(walletManagedAccounts.email, email)))
    .limit(1);
  return rows.length > 0;
}

/** Removes the account of an identity with its share; false when there was none. */
export async function deleteManagedAccount(db: Database, svcId: string): Promise<boolean> {
  const gone = await db
    .delete(walletManagedAccounts)
    .where(eq(walletManagedAccounts.svcId, svcId))
    .returning({ svcId: walletManagedAccounts.svcId });
  return gone.length > 0;
}
