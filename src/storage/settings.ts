/** Values fixed at first start and kept in the `settings` table: the network seed and the admin token hash. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from './database.ts';
import { settings } from './schema.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Reads a setting, or stores `create()` when it is missing (first start); returns the value and whether it was new. */
async function getOrCreate(db: Database, key: string, create: () => string): Promise<{ value: string; created: boolean }> {
  const existing = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  if (existing[0]) return { value: existing[0].value, created: false };
  const value = create();
  const inserted = await db.insert(settings).values({ key, value }).onConflictDoNothing().returning();
  if (inserted.length) return { value, created: true };
  return getOrCreate(db, key, create); // another instance created it first
}

/** The network seed from which validator and observer identities derive (32 random bytes at first start). */
export async function networkSeed(db: Database): Promise<Uint8Array> {
  const { value } = await getOrCreate(db, 'network_seed', () => randomBytes(32).toString('hex'));
  return Buffer.from(value, 'hex');
}

/**
 * The administrator token (D-048): created on first start and returned only then; only its SHA-256 hash
 * is stored (a 256-bit random token needs no slow hash).
 */
export async function ensureAdminToken(db: Database): Promise<string | undefined> {
  let token: string | undefined;
  const { created } = await getOrCreate(db, 'admin_token_sha256', () => {
    token = `svcadm_${randomBytes(32).toString('base64url')}`;
    return sha256(token);
  });
  return created ? token : undefined;
}

/** Whether `candidate` is the administrator token (constant-time comparison of the hashes). */
export async function isAdminToken(db: Database, candidate: string): Promise<boolean> {
  const rows = await db.select().from(settings).where(eq(settings.key, 'admin_token_sha256')).limit(1);
  if (!rows[0]) return false;
  const expected = Buffer.from(rows[0].value, 'hex');
  const given = Buffer.from(sha256(candidate), 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
