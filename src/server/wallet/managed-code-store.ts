/** Queries of the managed tier's one-time email codes (D-210): shared by every instance through the database. */
import { and, count, desc, eq, gt, isNull, lt, min, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletManagedEmailCodes } from '../../storage/schema.ts';

/** A stored code request. */
export type CodeRow = typeof walletManagedEmailCodes.$inferSelect;

const t = walletManagedEmailCodes;

/** Stores one request (a code's HMAC, or null when a notice went out instead). */
export async function insertCodeRequest(db: Database, row: Omit<CodeRow, 'attempts' | 'consumedAt'>): Promise<void> {
  await db.insert(t).values(row);
}

/** Requests for `email` since `since`. */
export async function requestsForEmail(db: Database, email: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(t)
    .where(and(eq(t.email, email), gt(t.createdAt, since)));
  return row?.n ?? 0;
}

/** Requests from `ip` since `since`, and the oldest of them (when the window frees a place). */
export async function requestsFromIp(
  db: Database,
  ip: string,
  since: Date,
): Promise<{ n: number; oldest: Date | null }> {
  const [row] = await db
    .select({ n: count(), oldest: min(t.createdAt) })
    .from(t)
    .where(and(eq(t.ip, ip), gt(t.createdAt, since)));
  return { n: row?.n ?? 0, oldest: row?.oldest ?? null };
}

/** Forgets requests older than `before` (past every window and every code's life). */
export async function pruneCodeRequests(db: Database, before: Date): Promise<void> {
  await db.delete(t).where(lt(t.createdAt, before));
}

/** The newest request of `svcId` for `email`: the only one whose code counts. */
export async function newestCodeRequest(db: Database, email: string, svcId: string): Promise<CodeRow | undefined> {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.email, email), eq(t.svcId, svcId)))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(1);
  return row;
}

/**
 * Spends one try of a live code in one statement (so concurrent tries cannot exceed `maxAttempts`);
 * the code's HMAC when a try was left, undefined when the code is spent, expired, used or absent.
 */
export async function spendAttempt(
  db: Database,
  id: string,
  now: Date,
  maxAttempts: number,
): Promise<Uint8Array | undefined> {
  const [row] = await db
    .update(t)
    .set({ attempts: sql`${t.attempts} + 1` })
    .where(and(eq(t.id, id), isNull(t.consumedAt), gt(t.expiresAt, now), lt(t.attempts, maxAttempts)))
    .returning({ codeHash: t.codeHash });
  return row?.codeHash ?? undefined;
}

/** Marks a code used; false when another request used it first (single use). */
export async function consumeCode(db: Database, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(t)
    .set({ consumedAt: now })
    .where(and(eq(t.id, id), isNull(t.consumedAt)))
    .returning({ id: t.id });
  return rows.length > 0;
}
