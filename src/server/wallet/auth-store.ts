/** Queries of registration, challenges and authorisation records (spec rule 2: public values only). */
import { and, desc, eq, gt, gte, lt, notInArray, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import {
  walletAuthRecords,
  walletChallenges,
  walletIdentities,
  walletIdentityKeys,
  walletIdentityOrigins,
} from '../../storage/schema.ts';

/** A stored challenge. */
export type ChallengeRow = typeof walletChallenges.$inferSelect;
/** A stored authorisation record joined with the identity's public key. */
export type AuthRecordRow = typeof walletAuthRecords.$inferSelect & { pqPublicKey: Uint8Array };

/** The registered ML-DSA-65 public key of `svcId`, if any. */
export async function identityKey(db: Database, svcId: string): Promise<Uint8Array | undefined> {
  const [row] = await db
    .select({ key: walletIdentities.pqPublicKey })
    .from(walletIdentities)
    .where(eq(walletIdentities.svcId, svcId));
  return row?.key;
}

/** D-147: the chain addresses one identity may hold. */
export const ADDRESSES_PER_IDENTITY = 64;

/** D-224: the window in which new identities are counted per client IP. */
export const IDENTITY_WINDOW_MS = 3_600_000;

/** Who registers: the key of the client IP (sync-store.ts ipKey) and its budget of new identities per hour (D-224). */
export type RegistrationOrigin = { ipKey: string; perHour: number };

/**
 * Registers `svcId` (D-069: idempotent) and adds chain addresses not seen before; true when the identity is
 * new. D-147: the addresses are counted in the same transaction, and over the quota nothing is stored.
 * D-224: a new identity is counted against its client IP; past `origin.perHour` in the last hour it is 429.
 */
export async function registerIdentity(
  db: Database,
  svcId: string,
  pqPublicKey: Uint8Array,
  keys: { chainId: string; address: string }[],
  now: Date,
  origin: RegistrationOrigin,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(walletIdentities)
      .values({ svcId, pqPublicKey, createdAt: now })
      .onConflictDoNothing()
      .returning({ svcId: walletIdentities.svcId });
    if (inserted.length === 1) await countNewIdentity(tx, svcId, now, origin);
    if (keys.length) {
      // The identity row is locked so that concurrent registrations of one svcId count one after another.
      await tx
        .select({ svcId: walletIdentities.svcId })
        .from(walletIdentities)
        .where(eq(walletIdentities.svcId, svcId))
        .for('update');
      await tx
        .insert(walletIdentityKeys)
        .values(keys.map((k) => ({ svcId, ...k })))
        .onConflictDoNothing();
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(walletIdentityKeys)
        .where(eq(walletIdentityKeys.svcId, svcId));
      const held = Number(row?.n ?? 0);
      if (held > ADDRESSES_PER_IDENTITY) {
        throw new RestError(
          ErrorCode.QUOTA_EXCEEDED,
          `svcId ${svcId} would hold ${held} chain addresses; an identity holds at most ${ADDRESSES_PER_IDENTITY}`,
        );
      }
    }
    return inserted.length === 1;
  });
}

/** D-224: admits one new identity for `origin` or throws 429 RATE_LIMITED (the transaction then stores nothing). */
async function countNewIdentity(
  tx: Parameters<Parameters<Database['transaction']>[0]>[0],
  svcId: string,
  now: Date,
  origin: RegistrationOrigin,
): Promise<void> {
  // Registrations from one IP count one after another, in every instance sharing the database.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`svckit:identities:${origin.ipKey}`}, 0))`);
  const since = new Date(now.getTime() - IDENTITY_WINDOW_MS);
  const recent = await tx
    .select({ createdAt: walletIdentityOrigins.createdAt })
    .from(walletIdentityOrigins)
    .where(and(eq(walletIdentityOrigins.ipKey, origin.ipKey), gte(walletIdentityOrigins.createdAt, since)))
    .orderBy(walletIdentityOrigins.createdAt)
    .limit(origin.perHour);
  if (recent.length >= origin.perHour) {
    const oldest = recent[0]!.createdAt.getTime();
    const seconds = Math.max(1, Math.ceil((oldest + IDENTITY_WINDOW_MS - now.getTime()) / 1000));
    throw new RestError(
      ErrorCode.RATE_LIMITED,
      `too many new identities: at most ${origin.perHour} per client IP per hour; retry in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  await tx.insert(walletIdentityOrigins).values({ svcId, ipKey: origin.ipKey, createdAt: now });
}

/** D-224: forgets which IP registered an identity once that no longer counts (data kept no longer than needed). */
export async function purgeIdentityOrigins(db: Database, now: Date): Promise<void> {
  await db
    .delete(walletIdentityOrigins)
    .where(lt(walletIdentityOrigins.createdAt, new Date(now.getTime() - IDENTITY_WINDOW_MS)));
}

/** D-145: outstanding challenges kept per svcId (the oldest beyond this are dropped) and in all. */
export const CHALLENGES_PER_IDENTITY = 8;
/** D-145: outstanding challenges the service keeps in all; beyond it a new challenge is refused (503). */
export const CHALLENGES_IN_TOTAL = 100_000;

/** How many challenges are stored (expired ones included until the next purge). */
export async function challengeCount(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(walletChallenges);
  return Number(row?.n ?? 0);
}

/**
 * Stores a new challenge beside the outstanding ones (D-145: a new challenge never replaces another), then
 * keeps only the newest {@link CHALLENGES_PER_IDENTITY} of its svcId.
 */
export async function putChallenge(db: Database, row: ChallengeRow): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(walletChallenges).values(row);
    const keep = tx
      .select({ nonce: walletChallenges.nonce })
      .from(walletChallenges)
      .where(eq(walletChallenges.svcId, row.svcId))
      .orderBy(desc(walletChallenges.expiresAt), desc(walletChallenges.nonce))
      .limit(CHALLENGES_PER_IDENTITY);
    await tx
      .delete(walletChallenges)
      .where(and(eq(walletChallenges.svcId, row.svcId), notInArray(walletChallenges.nonce, keep)));
  });
}

/** The unexpired challenges of (address, svcId), newest first (at most {@link CHALLENGES_PER_IDENTITY}). */
export async function outstandingChallenges(
  db: Database,
  address: string,
  svcId: string,
  now: Date,
): Promise<ChallengeRow[]> {
  return db
    .select()
    .from(walletChallenges)
    .where(
      and(
        eq(walletChallenges.svcId, svcId),
        eq(walletChallenges.address, address),
        gt(walletChallenges.expiresAt, now),
      ),
    )
    .orderBy(desc(walletChallenges.expiresAt), desc(walletChallenges.nonce))
    .limit(CHALLENGES_PER_IDENTITY);
}

/** Deletes the challenge `nonce`; true only for the one caller that deleted it (single use, D-145). */
export async function consumeChallenge(db: Database, nonce: string): Promise<boolean> {
  const rows = await db
    .delete(walletChallenges)
    .where(eq(walletChallenges.nonce, nonce))
    .returning({ nonce: walletChallenges.nonce });
  return rows.length === 1;
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
