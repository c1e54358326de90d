/**
 * Idempotency-Key on POST /transfers (D-046, after the IETF httpapi draft): the same key and body within 24
 * hours replays the first response; another body is a 422; a request still in progress is a 409. A request
 * that failed before creating anything releases its key, so the caller can correct it and retry. The
 * response is stored in the same transaction as the transfer, so a crash can never leave a transfer whose
 * key cannot replay it.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { idempotencyKeys } from '../../storage/schema.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

const RETENTION_MS = 24 * 60 * 60 * 1000;
/** D-046: a claim still without a response after this long belonged to a request that died with its process. */
export const ABANDONED_AFTER_MS = 60_000;

/** A stored response to replay. */
export type StoredResponse = { status: number; body: unknown };

/** Canonical digest of a request body. */
export const requestDigest = (body: unknown) => createHash('sha256').update(JSON.stringify(body)).digest('hex');

/** What a claim found: a stored response to replay, or the claim this request now holds. */
export type Claim = { replay: StoredResponse } | { claimedAt: Date };

/**
 * Claims `key` for this request. A claim still in progress after ABANDONED_AFTER_MS belonged to a request
 * that died with its process: if it had stored its transfer (the response body is written in the transfer's
 * own transaction, see storeResponse), that response is replayed; if not, the claim is taken over.
 */
export async function claimKey(
  db: Database,
  credentialId: string,
  key: string,
  digest: string,
  now: Date,
): Promise<Claim> {
  const where = and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key));
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ credentialId, key, requestSha256: digest, createdAt: now })
    .onConflictDoNothing()
    .returning();
  if (inserted.length) return { claimedAt: now };
  const [existing] = await db.select().from(idempotencyKeys).where(where);
  if (!existing) return claimKey(db, credentialId, key, digest, now);
  const age = now.getTime() - existing.createdAt.getTime();
  const abandoned = existing.responseStatus === null && age > ABANDONED_AFTER_MS;
  if (age > RETENTION_MS || (abandoned && existing.responseBody === null)) {
    await db.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.createdAt, existing.createdAt)));
    return claimKey(db, credentialId, key, digest, now);
  }
  if (existing.requestSha256 !== digest) {
    throw new RestError(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      'this Idempotency-Key was used with a different request body',
    );
  }
  if (abandoned) return { replay: { status: 201, body: existing.responseBody } };
  if (existing.responseStatus === null)
    throw new RestError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, 'a request with this Idempotency-Key is still in progress');
  return { replay: { status: existing.responseStatus, body: existing.responseBody } };
}

/**
 * Stores the response of the claim made at `claimedAt`: in the transfer's own transaction with `status`
 * null (the transfer and its replayable body commit together; the request is still in progress until its
 * broadcast ends), then with the status once the request answers. Throws 409 when the claim is no longer
 * this request's (taken over as abandoned): the transaction then rolls back and nothing is created twice.
 */
export async function storeResponse(
  db: Database,
  credentialId: string,
  key: string,
  claimedAt: Date,
  response: { status: number | null; body: unknown },
): Promise<void> {
  const updated = await db
    .update(idempotencyKeys)
    .set({ responseStatus: response.status, responseBody: response.body })
    .where(
      and(
        eq(idempotencyKeys.credentialId, credentialId),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.createdAt, claimedAt),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  if (updated.length === 0)
    throw new RestError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, 'this Idempotency-Key was taken over by a later request');
}

/** Releases a claimed key after a request that created nothing. */
export async function releaseKey(db: Database, credentialId: string, key: string, claimedAt: Date): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.credentialId, credentialId),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.createdAt, claimedAt),
      ),
    );
}
