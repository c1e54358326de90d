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

/** One seed of a wallet service key set (D-214): `retiresAt` (ms) is null for the key that signs. */
export type StoredServiceKey = { seed: Uint8Array; createdAt: number; retiresAt: number | null };

/** The settings key of the wallet service key set `name` (`token-signing`, `release-signing`). */
const serviceKeysKey = (name: string) => `wallet_keys:${name}`;

function encodeKeySet(keys: StoredServiceKey[]): Uint8Array {
  const entries = keys.map((k) => ({
    seed: Buffer.from(k.seed).toString('hex'),
    createdAt: k.createdAt,
    retiresAt: k.retiresAt,
  }));
  return new TextEncoder().encode(JSON.stringify({ v: 1, keys: entries }));
}

function decodeKeySet(key: string, bytes: Uint8Array): StoredServiceKey[] {
  const parsed = JSON.parse(new TextDecoder().decode(bytes)) as {
    v?: unknown;
    keys?: { seed?: unknown; createdAt?: unknown; retiresAt?: unknown }[];
  };
  if (parsed.v !== 1 || !Array.isArray(parsed.keys) || parsed.keys.length === 0)
    throw new Error(`the setting ${key} is not a wallet key set (D-214)`);
  return parsed.keys.map((k) => {
    if (typeof k.seed !== 'string' || !/^[0-9a-f]{64}$/.test(k.seed) || typeof k.createdAt !== 'number')
      throw new Error(`the setting ${key} holds a malformed key entry (D-214)`);
    return {
      seed: new Uint8Array(Buffer.from(k.seed, 'hex')),
      createdAt: k.createdAt,
      retiresAt: typeof k.retiresAt === 'number' ? k.retiresAt : null,
    };
  });
}

/** Whether the setting `key` holds another value than `value` now. */
async function changedSince(db: Database, key: string, value: string): Promise<boolean> {
  const rows = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  return rows[0]?.value !== value;
}

/** Opens a sealed setting, naming the likely cause when it does not open (another KEK). */
function openShared(keyring: Keyring, key: string, stored: string): Uint8Array {
  try {
    return open(keyring, key, stored);
  } catch (error) {
    if (!SEALED.test(stored)) throw error;
    throw new Error(
      `the setting ${key} does not open under this instance's key-encryption key: every instance on one database needs the same SVC_KEK (D-148, D-214)`,
    );
  }
}

/**
 * The wallet service key set `name` (D-214), sealed under the KEK (D-148) in the `settings` table so that every
 * instance on the database signs and verifies with the same keys; `create()` gives the first set. Returns the
 * set and the stored (sealed) form, which changes whenever the set does.
 */
export async function serviceKeySet(
  db: Database,
  keyring: Keyring,
  name: string,
  create: () => StoredServiceKey[],
): Promise<{ keys: StoredServiceKey[]; stored: string }> {
  const key = serviceKeysKey(name);
  let made: StoredServiceKey[] | undefined;
  const { value, created } = await getOrCreate(db, key, () => {
    made = create();
    return seal(keyring, key, encodeKeySet(made));
  });
  if (created) return { keys: made!, stored: value };
  return { keys: decodeKeySet(key, openShared(keyring, key, value)), stored: value };
}

/** The stored form of the key set `name` when it differs from `known`, with the set; undefined when unchanged. */
export async function changedServiceKeySet(
  db: Database,
  keyring: Keyring,
  name: string,
  known: string,
): Promise<{ keys: StoredServiceKey[]; stored: string } | undefined> {
  const key = serviceKeysKey(name);
  const rows = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  const row = rows[0];
  if (!row) throw new Error(`the setting ${key} is missing (D-214)`);
  if (row.value === known) return undefined;
  return { keys: decodeKeySet(key, openShared(keyring, key, row.value)), stored: row.value };
}

/**
 * Changes the key set `name` with `update` (its current keys to the new ones, or undefined for no change),
 * compare-and-set on the stored value so that two instances changing it at once both take effect in turn.
 */
export async function updateServiceKeySet(
  db: Database,
  keyring: Keyring,
  name: string,
  update: (keys: StoredServiceKey[]) => StoredServiceKey[] | undefined,
): Promise<StoredServiceKey[]> {
  const key = serviceKeysKey(name);
  for (let attempt = 0; attempt < 10; attempt++) {
    const rows = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
    const row = rows[0];
    if (!row) throw new Error(`the setting ${key} is missing (D-214)`);
    let opened: Uint8Array;
    try {
      opened = openShared(keyring, key, row.value);
    } catch (error) {
      // A KEK rotation re-sealed the row and dropped the KEK it was read under (D-061): read it again.
      if (await changedSince(db, key, row.value)) continue;
      throw error;
    }
    const keys = decodeKeySet(key, opened);
    const next = update(keys);
    if (!next) return keys;
    const written = await db
      .update(settings)
      .set({ value: seal(keyring, key, encodeKeySet(next)) })
      .where(and(eq(settings.key, key), eq(settings.value, row.value)))
      .returning();
    if (written.length) return next;
  }
  throw new Error(`the setting ${key} kept changing under concurrent updates; try again`);
}

/**
 * The secret of the managed tier's stand-in salts (D-127, D-216), sealed under the KEK (D-148) and shared by every
 * instance; `create()` gives it on the first start of a database.
 */
export function managedStandInSeed(db: Database, keyring: Keyring, create: () => Uint8Array): Promise<Uint8Array> {
  return sealedSetting(db, keyring, 'wallet_managed_standin_seed', create, () => {
    throw new Error('the setting wallet_managed_standin_seed is not in its sealed form (D-148)');
  });
}

/**
 * Replaces the administrator token (D-221) if `current` is the stored one: a compare-and-set on its hash, so
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
