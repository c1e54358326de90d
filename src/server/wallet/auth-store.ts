/** Queries of registration, challenges and authorisation records (spec rule 2: public values only). */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletAuthRecords, walletChallenges, walletIdentities, walletIdentityKeys } from '../../storage/schema.ts';

/** A stored challenge. */
export type ChallengeRow = typeof walletChallenges.$inferSelect;
/** A stored authorisation record joined with the identity's public key. */
export type AuthRecordRow = typeof walletAuthRecords.$inferSelect & { pqPublicKey: Uint8Array };

/** The registered ML-DSA-65 public key of `svcId`, if any. */
export async function identityKey(db: Database, svcId: string): Promise<Uint8Array | undefined> {
  const [row] = await db.select({ key: walletIdentities.pqPublicKey }).from(walletIdentities).where(eq(walletIdentities.svcId, svcId));
  return row?.key;
}

/** Registers `svcId` (D-069: idempotent) and adds chain addresses not seen before; true when the identity is new. */
export async function registerIdentity(db: Database, svcId: string, pqPublicKey: Uint8Array, keys: { chainId: string; address: string }[], now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx.insert(walletIdentities).values({ svcId, pqPublicKey, createdAt: now }).onConflictDoNothing().returning({ svcId: walletIdentities.svcId });
    if (keys.length) await tx.insert(walletIdentityKeys).values(keys.map((k) => ({ svcId, ...k }))).onConflictDoNothing();
    return inserted.length === 1;
  });
}

/** Stores the challenge for (address, svcId), replacing an earlier unused one (D-070). */
export async function putChallenge(db: Database, row: ChallengeRow): Promise<void> {
  await db
    .insert(walletChallenges)
    .values(row)
    .onConflictDoUpdate({ target: [walletChallenges.address, walletChallenges.svcId], set: { nonce: row.nonce, message: row.message, expiresAt: row.expiresAt } });
}

/** Removes and returns the outstanding challenge of (address, svcId): D-070 "verify consumes the nonce whatever the outcome". */
export async function takeChallenge(db: Database, address: string, svcId: string): Promise<ChallengeRow | undefined> {
  const [row] = await db
    .delete(walletChallenges)
    .where(and(eq(walletChallenges.address, address), eq(walletChallenges.svcId, svcId)))
    .returning();
  return row;
}

/** Drops challenges that expired before `now` (they can never be used). */
export async function purgeExpiredChallenges(db: Database, now: Date): Promise<void> {
  await db.delete(walletChallenges).where(sql`${walletChallenges.expiresAt} < ${now.toISOString()}`);
}

/** Keeps the signed challenge of a successful login (D-081). */
export async function putAuthRecord(db: Database, row: typeof walletAuthRecords.$inferInsert): Promise<void> {
  await db.insert(walletAuthRecords).values(row);
}

/** The authorisation record of `nonce` with the identity's public key. */
export async function authRecord(db: Database, nonce: string): Promise<AuthRecordRow | undefined> {
  const [row] = await db
    .select({
      nonce: walletAuthRecords.nonce,
      svcId: walletAuthRecords.svcId,
      address: walletAuthRecords.address,
      message: walletAuthRecords.message,
      ecdsaSig: walletAuthRecords.ecdsaSig,
      pqSig: walletAuthRecords.pqSig,
      verifiedAt: walletAuthRecords.verifiedAt,
      pqPublicKey: walletIdentities.pqPublicKey,
    })
    .from(walletAuthRecords)
    .innerJoin(walletIdentities, eq(walletIdentities.svcId, walletAuthRecords.svcId))
    .where(eq(walletAuthRecords.nonce, nonce));
  return row;
}
