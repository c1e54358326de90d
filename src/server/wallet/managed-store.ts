/** Queries of the managed-account tier (D-127): one account, hence at most one sealed share, per identity. */
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletManagedAccounts } from '../../storage/schema.ts';

/** A stored managed account. */
export type ManagedRow = typeof walletManagedAccounts.$inferSelect;

/**
 * Stores a new account whose email a code has just proven (D-210); false when the svcId already has one or an
 * account with a proven email holds the email. An account opened before emails were proven does not hold its
 * email against a proven claim: it is removed in the same transaction.
 */
export async function claimManagedAccount(db: Database, row: ManagedRow): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx
      .delete(walletManagedAccounts)
      .where(and(eq(walletManagedAccounts.email, row.email), isNull(walletManagedAccounts.emailVerifiedAt)));
    const inserted = await tx
      .insert(walletManagedAccounts)
      .values(row)
      .onConflictDoNothing()
      .returning({ svcId: walletManagedAccounts.svcId });
    return inserted.length > 0;
  });
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

/** True when an account whose email was proven holds `email` (D-210). */
export async function emailHeld(db: Database, email: string): Promise<boolean> {
  const rows = await db
    .select({ svcId: walletManagedAccounts.svcId })
    .from(walletManagedAccounts)
    .where(and(eq(walletManagedAccounts.email, email), isNotNull(walletManagedAccounts.emailVerifiedAt)))
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
