/**
 * Idempotency-Key on POST /transfers (D-046, after the IETF httpapi draft): the same key and body within 24
 * hours replays the first response; another body is a 422; a request still in progress is a 409. A request
 * that failed before creating anything releases its key, so the caller can correct it and retry.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { idempotencyKeys } from '../../storage/schema.ts';
import { conflict, unprocessable } from '../http/errors.ts';

const RETENTION_MS = 24 * 60 * 60 * 1000;

/** A stored response to replay. */
export type StoredResponse = { status: number; body: unknown };

/** Canonical digest of a request body. */
export const requestDigest = (body: unknown) => createHash('sha256').update(JSON.stringify(body)).digest('hex');

/** Claims `key` for this request; returns a stored response to replay, or undefined to go ahead. */
export async function claimKey(db: Database, credentialId: string, key: string, digest: string, now: Date): Promise<StoredResponse | undefined> {
  const where = and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key));
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ credentialId, key, requestSha256: digest, createdAt: now })
    .onConflictDoNothing()
    .returning();
  if (inserted.length) return undefined;
  const [existing] = await db.select().from(idempotencyKeys).where(where);
  if (!existing) return claimKey(db, credentialId, key, digest, now);
  if (now.getTime() - existing.createdAt.getTime() > RETENTION_MS) {
    await db.delete(idempotencyKeys).where(where);
    return claimKey(db, credentialId, key, digest, now);
  }
  if (existing.requestSha256 !== digest) {
    throw unprocessable('this Idempotency-Key was used with a different request body', 'IDEMPOTENCY_KEY_REUSED');
  }
  if (existing.responseStatus === null) throw conflict('a request with this Idempotency-Key is still in progress', 'IDEMPOTENCY_IN_PROGRESS');
  return { status: existing.responseStatus, body: existing.responseBody };
}

/** Stores the response of a claimed key. */
export async function completeKey(db: Database, credentialId: string, key: string, response: StoredResponse): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ responseStatus: response.status, responseBody: response.body })
    .where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)));
}

/** Releases a claimed key after a request that created nothing. */
export async function releaseKey(db: Database, credentialId: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)));
}
