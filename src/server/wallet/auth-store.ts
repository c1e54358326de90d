/** Queries of registration, challenges and authorisation records (spec rule 2: public values only). */
import { and, asc, desc, eq, gt, gte, lt, sql } from 'drizzle-orm';
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

/** D-219: the window in which new identities are counted per client IP. */
export const IDENTITY_WINDOW_MS = 3_600_000;

/** Who registers: the key of the client IP (sync-store.ts ipKey) and its budget of new identities per hour (D-219). */
export type RegistrationOrigin = { ipKey: string; perHour: number };

/**
 * Registers `svcId` (D-069: idempotent) and adds chain addresses not seen before; true when the identity is
 * new. D-147: the addresses are counted in the same transaction, and over the quota nothing is stored.
 * D-219: a new identity is counted against its client IP; past `origin.perHour` in the last hour it is 429.
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

/** D-219: admits one new identity for `origin` or throws 429 RATE_LIMITED (the transaction then stores nothing). */
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

/** D-219: forgets which IP registered an identity once that no longer counts (data kept no longer than needed). */
export async function purgeIdentityOrigins(db: Database, now: Date): Promise<void> {
  await db
    .delete(walletIdentityOrigins)
    .where(lt(walletIdentityOrigins.createdAt, new Date(now.getTime() - IDENTITY_WINDOW_MS)));
}

/** D-145, D-208: outstanding challenges per (svcId, address); verify tries at most these. */
export const CHALLENGES_PER_ADDRESS = 8;
/** D-208: of one (svcId, address)'s challenges, those one client IP may hold (half, so one IP never holds all). */
export const CHALLENGES_PER_ADDRESS_PER_IP = 4;
/** D-208: outstanding challenges one client IP may hold in all. */
export const CHALLENGES_PER_IP = 256;
/** D-208: a challenge younger than this is never evicted to make room; the request is refused (429) instead. */
export const CHALLENGE_MIN_AGE_MS = 60_000;
/** D-145: outstanding challenges the service keeps in all; beyond it a new challenge is refused (503). */
export const CHALLENGES_IN_TOTAL = 100_000;

/** How many challenges are stored (expired ones included until the next purge). */
export async function challengeCount(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(walletChallenges);
  return Number(row?.n ?? 0);
}

/** True when `address` (canonical) is one of the chain addresses registered to `svcId` (D-030, D-147). */
export async function isRegisteredAddress(db: Database, svcId: string, address: string): Promise<boolean> {
  const [row] = await db
    .select({ svcId: walletIdentityKeys.svcId })
    .from(walletIdentityKeys)
    .where(and(eq(walletIdentityKeys.svcId, svcId), eq(walletIdentityKeys.address, address)))
    .limit(1);
  return row !== undefined;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * Stores a new challenge beside the outstanding ones (D-145: a new challenge never replaces another). D-208:
 * each bound — per (svcId, address) and client IP, per (svcId, address), per client IP — that is full gives
 * way by its oldest challenge only when that one is at least {@link CHALLENGE_MIN_AGE_MS} old; otherwise
 * nothing is stored and the answer is 429 with the seconds until a challenge may give way.
 */
export async function putChallenge(db: Database, row: ChallengeRow, now: number, lifetimeMs: number): Promise<void> {
  await db.transaction(async (tx) => {
    // One svcId's and one IP's requests count one after another, on PostgreSQL as on PGlite.
    await tx
      .select({ svcId: walletIdentities.svcId })
      .from(walletIdentities)
      .where(eq(walletIdentities.svcId, row.svcId))
      .for('update');
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`wallet-challenge-ip:${row.ip}`}, 0))`);
    const live = gt(walletChallenges.expiresAt, new Date(now));
    const ofAddress = and(eq(walletChallenges.svcId, row.svcId), eq(walletChallenges.address, row.address));
    const ofIp = eq(walletChallenges.ip, row.ip);
    const bounds = [
      { where: and(ofAddress, ofIp), max: CHALLENGES_PER_ADDRESS_PER_IP, what: 'from this client for this address' },
      { where: ofAddress, max: CHALLENGES_PER_ADDRESS, what: 'for this address and svcId' },
      { where: ofIp, max: CHALLENGES_PER_IP, what: 'from this client' },
    ];
    for (const bound of bounds) await makeRoom(tx, and(bound.where, live)!, bound.max, bound.what, now, lifetimeMs);
    await tx.insert(walletChallenges).values(row);
  });
}

/** Evicts the oldest challenge of a full bound when it is old enough (D-208), else throws 429. */
async function makeRoom(
  tx: Tx,
  where: NonNullable<ReturnType<typeof and>>,
  max: number,
  what: string,
  now: number,
  lifetimeMs: number,
): Promise<void> {
  const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(walletChallenges).where(where);
  if (Number(count?.n ?? 0) < max) return;
  const [oldest] = await tx
    .select({ nonce: walletChallenges.nonce, expiresAt: walletChallenges.expiresAt })
    .from(walletChallenges)
    .where(where)
    .orderBy(asc(walletChallenges.expiresAt), asc(walletChallenges.nonce))
    .limit(1);
  const issuedAt = oldest!.expiresAt.getTime() - lifetimeMs;
  const wait = issuedAt + CHALLENGE_MIN_AGE_MS - now;
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new RestError(
      ErrorCode.RATE_LIMITED,
      `${max} sign-in challenges are outstanding ${what} and none is ${CHALLENGE_MIN_AGE_MS / 1000} s old yet; use one of them, or ask again in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  await tx.delete(walletChallenges).where(eq(walletChallenges.nonce, oldest!.nonce));
}

/** The unexpired challenges of (address, svcId), newest first (at most {@link CHALLENGES_PER_ADDRESS}). */
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
    .limit(CHALLENGES_PER_ADDRESS);
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
