/** Queries of owners, bindings and banking authorisations (spec rule 4; D-083 to D-085). */
import { and, desc, eq, inArray, or } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletBankingAuthorizations, walletBindings, walletIdentities, walletOwners } from '../../storage/schema.ts';

/** A stored binding. */
export type BindingRow = typeof walletBindings.$inferSelect;
/** A stored banking authorisation. */
export type AuthorizationRow = typeof walletBankingAuthorizations.$inferSelect;
/** A transaction handle (the same query surface as the database). */
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Records (or updates) a KYC-verified owner; true when the identity was not an owner before. */
export async function putOwner(db: Database, row: typeof walletOwners.$inferSelect): Promise<boolean> {
  const inserted = await db
    .insert(walletOwners)
    .values(row)
    .onConflictDoNothing()
    .returning({ svcId: walletOwners.svcId });
  if (inserted.length) return true;
  await db
    .update(walletOwners)
    .set({ kycReference: row.kycReference, kycVerifiedAt: row.kycVerifiedAt, updatedAt: row.updatedAt })
    .where(eq(walletOwners.svcId, row.svcId));
  return false;
}

/** Whether `svcId` is a recorded KYC-verified owner. */
export async function isOwner(db: Database, svcId: string): Promise<boolean> {
  const [row] = await db.select({ svcId: walletOwners.svcId }).from(walletOwners).where(eq(walletOwners.svcId, svcId));
  return row !== undefined;
}

/** Locks the wallet identity's row, serialising binding changes and authorisations of one wallet. */
export async function lockIdentity(tx: Tx, svcId: string): Promise<boolean> {
  const rows = await tx
    .select({ svcId: walletIdentities.svcId })
    .from(walletIdentities)
    .where(eq(walletIdentities.svcId, svcId))
    .for('update');
  return rows.length === 1;
}

/** The wallet's bindings that are pending or active (expiry is checked by the caller against the clock). */
export function openBindingsOf(db: Database | Tx, walletSvcId: string): Promise<BindingRow[]> {
  return db
    .select()
    .from(walletBindings)
    .where(and(eq(walletBindings.walletSvcId, walletSvcId), inArray(walletBindings.status, ['pending', 'active'])))
    .orderBy(desc(walletBindings.createdAt));
}

/** Inserts a binding. */
export async function insertBinding(tx: Database | Tx, row: BindingRow): Promise<void> {
  await tx.insert(walletBindings).values(row);
}

/** The binding `id`, if any. */
export async function bindingById(db: Database | Tx, id: string): Promise<BindingRow | undefined> {
  const [row] = await db.select().from(walletBindings).where(eq(walletBindings.id, id));
  return row;
}

/** Updates fields of binding `id` and returns the new row. */
export async function updateBinding(db: Database | Tx, id: string, set: Partial<BindingRow>): Promise<BindingRow> {
  const [row] = await db.update(walletBindings).set(set).where(eq(walletBindings.id, id)).returning();
  return row!;
}

/** Bindings where `svcId` is the owner or the wallet, newest first. */
export function bindingsOf(db: Database, svcId: string): Promise<BindingRow[]> {
  return db
    .select()
    .from(walletBindings)
    .where(or(eq(walletBindings.ownerSvcId, svcId), eq(walletBindings.walletSvcId, svcId)))
    .orderBy(desc(walletBindings.createdAt))
    .limit(200);
}

/** Records one banking authorisation, approved or refused. */
export async function insertAuthorization(tx: Database | Tx, row: AuthorizationRow): Promise<void> {
  await tx.insert(walletBankingAuthorizations).values(row);
}

/** The activity under binding `id`, newest first. */
export function activityOf(db: Database, bindingId: string): Promise<AuthorizationRow[]> {
  return db
    .select()
    .from(walletBankingAuthorizations)
    .where(eq(walletBankingAuthorizations.bindingId, bindingId))
    .orderBy(desc(walletBankingAuthorizations.createdAt), desc(walletBankingAuthorizations.id))
    .limit(500);
}
