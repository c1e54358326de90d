/**
 * The read-only metrics token (D-280): `svcmet_` followed by 43 base64url characters, issued by the administrator
 * for a Prometheus scraper, shown once and stored only as its SHA-256 hash in the `settings` table, as the admin
 * token (D-048). Issuing a new one replaces the previous one on every instance (each scrape reads the one hash).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { settings } from '../../storage/schema.ts';

const KEY = 'metrics_token_sha256';
const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** D-280: the form of a metrics token. */
export const METRICS_TOKEN = /^svcmet_[A-Za-z0-9_-]{43}$/;

/** Issues a new metrics token, replacing any previous one; returns it (the only time it is seen). */
export async function issueMetricsToken(db: Database): Promise<string> {
  const token = `svcmet_${randomBytes(32).toString('base64url')}`;
  const value = sha256(token).toString('hex');
  await db.insert(settings).values({ key: KEY, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
  return token;
}

/** Whether `candidate` is the current metrics token (constant-time comparison of the hashes). */
export async function isMetricsToken(db: Database, candidate: string): Promise<boolean> {
  const rows = await db.select().from(settings).where(eq(settings.key, KEY)).limit(1);
  if (!rows[0]) return false;
  const expected = Buffer.from(rows[0].value, 'hex');
  const given = sha256(candidate);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
