/**
 * Values fixed at first start and kept in the `settings` table: the network seed, the embedded chain's
 * mnemonic and the admin token hash. The secrets among them are sealed under the key-encryption key (D-148).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, like, not } from 'drizzle-orm';
import type { Keyring } from '../ledger/keyring.ts';
import type { Database } from './database.ts';
import { settings } from './schema.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Reads a setting, or stores `create()` when it is missing (first start); returns the value and whether it was new. */
async function getOrCreate(
  db: Database,
  key: string,
  create: () => string,
): Promise<{ value: string; created: boolean }> {
  const existing = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  if (existing[0]) return { value: existing[0].value, created: false };
  const value = create();
  const inserted = await db.insert(settings).values({ key, value }).onConflictDoNothing().returning();
  if (inserted.length) return { value, created: true };
  return getOrCreate(db, key, create); // another instance created it first
}

// D-148: the stored form of a sealed setting, as D-130's webhook secrets: `kek1:<kekId>:<base64url(nonce || ciphertext || tag)>`.
const PREFIX = 'kek1';
const SEALED = /^kek1:(kek_[0-9A-Z]{26}):([A-Za-z0-9_-]+)$/;
/** What a sealed setting is bound to, so that a value copied to another key does not open. */
const context = (key: string) => `setting:${key}`;

function seal(keyring: Keyring, key: string, value: Uint8Array): string {
  const { kekId, sealed } = keyring.seal(value, context(key));
  return `${PREFIX}:${kekId}:${Buffer.from(sealed).toString('base64url')}`;
}

function open(keyring: Keyring, key: string, stored: string): Uint8Array {
  const match = SEALED.exec(stored);
  if (!match) throw new Error(`the setting ${key} is not in its sealed form (D-148)`);
  return keyring.open(match[1]!, Buffer.from(match[2]!, 'base64url'), context(key));
}

/**
 * A secret setting sealed under the KEK (D-148), created by `create()` on first start. `clear` decodes a
 * value an svckit before D-148 stored in clear: it is sealed now, in place, keeping its bytes.
 */
async function sealedSetting(
  db: Database,
  keyring: Keyring,
  key: string,
  create: () => Uint8Array,
  clear: (stored: string) => Uint8Array,
): Promise<Uint8Array> {
  let made: Uint8Array | undefined;
  const { value, created } = await getOrCreate(db, key, () => {
    made = create();
    return seal(keyring, key, made);
  });
  if (created) return made!;
  if (SEALED.test(value)) return open(keyring, key, value);
  const bytes = clear(value);
  // Only the clear value is replaced: another instance converting at the same time writes the same bytes.
  await db
    .update(settings)
    .set({ value: seal(keyring, key, bytes) })
    .where(and(eq(settings.key, key), eq(settings.value, value)));
  return bytes;
}

/** The network seed from which validator and observer identities derive (32 random bytes at first start; D-148 sealed). */
export function networkSeed(db: Database, keyring: Keyring): Promise<Uint8Array> {
  return sealedSetting(
    db,
    keyring,
    'network_seed',
    () => randomBytes(32),
    (stored) => Buffer.from(stored, 'hex'),
  );
}

/**
 * The BIP-39 mnemonic of the embedded chain's funding account (D-151): `create()` on the first start of a
 * database, sealed under the KEK (D-148), the same on every later start so Anvil's reloaded state matches.
 */
export async function chainMnemonic(db: Database, keyring: Keyring, create: () => string): Promise<string> {
  const bytes = await sealedSetting(
    db,
    keyring,
    'chain_mnemonic',
    () => new TextEncoder().encode(create()),
    (stored) => new TextEncoder().encode(stored),
  );
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/**
 * Seals again under the active KEK every setting sealed under another one (the KEK rotation, D-061, D-148).
 * Runs inside the caller's transaction; returns how many it re-sealed.
 */
export async function resealSettings(tx: Database, keyring: Keyring): Promise<number> {
  const rows = await tx
    .select()
    .from(settings)
    .where(and(like(settings.value, `${PREFIX}:%`), not(like(settings.value, `${PREFIX}:${keyring.activeId}:%`))))
    .for('update');
  for (const row of rows) {
    await tx
      .update(settings)
      .set({ value: seal(keyring, row.key, open(keyring, row.key, row.value)) })
      .where(eq(settings.key, row.key));
  }
  return rows.length;
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

/**
 * Replaces the administrator token (D-227) if `current` is the stored one: a compare-and-set on its hash, so
 * of two rotations from one token only one succeeds. Returns the new token, or undefined when `current` is
 * not (or no longer) the administrator token. Nothing caches the hash: every check reads this row.
 */
export async function rotateAdminToken(db: Database, current: string): Promise<string | undefined> {
  const token = `svcadm_${randomBytes(32).toString('base64url')}`;
  const replaced = await db
    .update(settings)
    .set({ value: sha256(token) })
    .where(and(eq(settings.key, 'admin_token_sha256'), eq(settings.value, sha256(current))))
    .returning({ key: settings.key });
  return replaced.length ? token : undefined;
}
