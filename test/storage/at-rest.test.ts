// Data at rest (D-148, D-149): the data directory and PGlite's files are private to the server's user, and
// the network seed is sealed under the key-encryption key, an older clear value converted in place.
import { mkdirSync, mkdtempSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveValidators } from '../../src/node/qbft/validators.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { settings } from '../../src/storage/schema.ts';
import { networkSeed, resealSettings } from '../../src/storage/settings.ts';
import { ensurePrivateDir } from '../../src/storage/private-dir.ts';
import { startTestStack } from '../support/stack.ts';
import { registerFreshDatabase } from './fresh-database.ts';

const fresh = registerFreshDatabase('svckit_at_rest');
const scratch = mkdtempSync(path.join(tmpdir(), 'svckit-at-rest-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const modeOf = (dir: string) => (statSync(dir).mode & 0o777).toString(8);

describe('the data directory (D-149)', () => {
  it('a fresh data directory and its PGlite directory are created mode 0700', async () => {
    const dataDir = path.join(scratch, 'fresh', '.data');
    // A given data directory that does not exist yet: the stack creates it, and persists there.
    const stack = await startTestStack({ dataDir });
    try {
      expect(modeOf(dataDir)).toBe('700');
      if (!process.env.DATABASE_URL) expect(modeOf(path.join(dataDir, 'pglite'))).toBe('700');
    } finally {
      await stack.close();
    }
  });

  it('an existing directory open to group and others is tightened to 0700', () => {
    const dir = path.join(scratch, 'loose');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe('700');
  });
});

describe('the network seed at rest (D-148)', () => {
  it('a seed an older svckit stored in clear is sealed at start, and the validators it derives are unchanged', async () => {
    const db = fresh.database.db;
    const keyring = Keyring.open({ dataDir: path.join(scratch, 'keyring') });
    const clear = 'a1'.repeat(32);
    await db.delete(settings).where(eq(settings.key, 'network_seed'));
    await db.insert(settings).values({ key: 'network_seed', value: clear });
    const before = deriveValidators(Buffer.from(clear, 'hex'), 4).map((v) => v.address);

    const seed = await networkSeed(db, keyring);
    const [stored] = await db.select().from(settings).where(eq(settings.key, 'network_seed'));
    expect(stored!.value).not.toContain(clear);
    expect(stored!.value).toMatch(/^kek1:kek_[0-9A-Z]{26}:[A-Za-z0-9_-]+$/);
    expect(deriveValidators(seed, 4).map((v) => v.address)).toEqual(before);
    // The next start opens the sealed value to the same seed.
    expect(deriveValidators(await networkSeed(db, keyring), 4).map((v) => v.address)).toEqual(before);

    // A KEK rotation re-seals it under the new key, and the old key can go.
    keyring.addActive();
    await db.transaction((tx) => resealSettings(tx as never, keyring));
    keyring.retainActiveOnly();
    const [resealed] = await db.select().from(settings).where(eq(settings.key, 'network_seed'));
    expect(resealed!.value.startsWith(`kek1:${keyring.activeId}:`)).toBe(true);
    expect(deriveValidators(await networkSeed(db, keyring), 4).map((v) => v.address)).toEqual(before);
  });

  it('a first start stores the seed sealed, never in clear', async () => {
    const db = fresh.database.db;
    const keyring = Keyring.open({ dataDir: null });
    await db.delete(settings).where(eq(settings.key, 'network_seed'));
    const seed = await networkSeed(db, keyring);
    const [stored] = await db.select().from(settings).where(eq(settings.key, 'network_seed'));
    expect(stored!.value).not.toContain(Buffer.from(seed).toString('hex'));
    expect(stored!.value.startsWith(`kek1:${keyring.activeId}:`)).toBe(true);
  });
});
