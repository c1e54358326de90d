// The wallet service keys are shared by every instance on one database (D-214): sealed under the KEK in the
// `settings` table, and a rotation keeps the retired key verifying for its grace period (D-215). Two key
// rings on one database stand for two instances; the session tokens are checked with the real verifier.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { rotateServiceKey, ServiceKeyRing } from '../../src/server/wallet/keys.ts';
import { SessionTokens } from '../../src/server/wallet/tokens.ts';
import { settings } from '../../src/storage/schema.ts';
import { resealSettings } from '../../src/storage/settings.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('svckit_service_keys');

/** One KEK for the file: a KEK rotation re-seals every sealed setting of the database. */
const keyring = Keyring.open({ dataDir: null });
const GRACE_MS = 3_600_000;
const ISSUER = 'https://wallet.example';
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as never;

describe('the wallet key sets on one database (D-214, D-215)', () => {
  it('two instances sign and verify with one key; after a rotation the retired key verifies until its grace ends', async () => {
    const db = fresh.database.db;
    const clock = new ManualClock();
    const options = { db, keyring, name: 'token-signing' as const, clock, graceMs: GRACE_MS };
    const one = await ServiceKeyRing.open(options);
    const two = await ServiceKeyRing.open(options);
    expect(two.current.kid).toBe(one.current.kid);

    const tokensOne = new SessionTokens(one.verifying, clock, () => ISSUER);
    const tokensTwo = new SessionTokens(two.verifying, clock, () => ISSUER);
    const before = (await tokensOne.issue('svc_0000000000000001', '0x01', 'nonce')).token;
    await expect(tokensTwo.authenticate(bearer(before))).resolves.toMatchObject({ sub: 'svc_0000000000000001' });

    const { current, retired, retiresAt } = await one.rotate();
    expect(retired.kid).toBe(two.current.kid);
    expect(retiresAt).toBe(clock.now() + GRACE_MS);
    await two.refresh();
    expect(two.current.kid).toBe(current.kid);
    // Both keys are published and verify during the grace period; new tokens carry the new kid.
    expect(tokensTwo.jwks().keys.map((k) => k.kid)).toEqual([current.kid, retired.kid]);
    const after = (await tokensTwo.issue('svc_0000000000000001', '0x01', 'nonce')).token;
    await expect(tokensOne.authenticate(bearer(after))).resolves.toBeTruthy();
    clock.advance(GRACE_MS - 60_000);
    const late = (await tokensOne.issue('svc_0000000000000002', '0x02', 'nonce')).token;
    await two.refresh();
    // A token the old key signed just before the rotation took effect everywhere is not cut short.
    await expect(tokensTwo.authenticate(bearer(late))).resolves.toBeTruthy();

    // Past the grace period the retired key leaves the JWKS and verifies nothing.
    clock.advance(60_000);
    await two.refresh();
    expect(tokensTwo.jwks().keys.map((k) => k.kid)).toEqual([current.kid]);
    const stale = await new SessionTokens([retired], clock, () => ISSUER).issue('svc_0000000000000003', '0x03', 'n');
    await expect(tokensTwo.authenticate(bearer(stale.token))).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    // The next rotation drops the retired entry from the stored set.
    await one.rotate();
    await two.refresh();
    expect(two.verifying).toHaveLength(2);
    expect(two.verifying.map((k) => k.kid)).not.toContain(retired.kid);
  });

  it('a key set is stored sealed under the KEK, re-sealed by a KEK rotation, and does not open under another KEK', async () => {
    const db = fresh.database.db;
    const clock = new ManualClock();
    await db.delete(settings).where(eq(settings.key, 'wallet_keys:release-signing'));
    const ring = await ServiceKeyRing.open({ db, keyring, name: 'release-signing', clock, graceMs: GRACE_MS });
    const kid = ring.current.kid;
    const [row] = await db.select().from(settings).where(eq(settings.key, 'wallet_keys:release-signing'));
    expect(row!.value).toMatch(/^kek1:kek_[0-9A-Z]{26}:[A-Za-z0-9_-]+$/);
    // A KEK rotation (D-061, D-148) re-seals the set; the instances read the same key from it.
    keyring.addActive();
    await db.transaction((tx) => resealSettings(tx as never, keyring));
    keyring.retainActiveOnly();
    await ring.refresh();
    expect(ring.current.kid).toBe(kid);
    const [resealed] = await db.select().from(settings).where(eq(settings.key, 'wallet_keys:release-signing'));
    expect(resealed!.value.startsWith(`kek1:${keyring.activeId}:`)).toBe(true);
    const other = Keyring.open({ dataDir: null });
    await expect(
      ServiceKeyRing.open({ db, keyring: other, name: 'release-signing', clock, graceMs: GRACE_MS }),
    ).rejects.toThrow(/same SVC_KEK/);
  });

  it('a rotation that read the set just before a KEK rotation dropped its KEK reads it again, never a 500 (D-061)', async () => {
    const db = fresh.database.db;
    // The file's one KEK: the rotation below re-seals every sealed setting of the database.
    const own = keyring;
    const options = { db, keyring: own, name: 'release-signing' as const, clock: new ManualClock(), graceMs: GRACE_MS };
    await ServiceKeyRing.open(options);
    // A database whose first read of the set is answered, then the KEK rotates before the caller opens it: the
    // row is re-sealed under the new KEK and the old one dropped, as POST /kek/rotate does between two awaits.
    let raced = false;
    const racing = new Proxy(db, {
      get(target, property, receiver) {
        if (property !== 'select' || raced) return Reflect.get(target, property, receiver);
        return (...args: unknown[]) => {
          const query = (target.select as (...a: unknown[]) => { from(t: unknown): unknown })(...args);
          const from = query.from.bind(query);
          return {
            from: (table: unknown) => {
              const where = from(table) as { where(c: unknown): { limit(n: number): Promise<unknown> } };
              return {
                where: (condition: unknown) => ({
                  limit: async (n: number) => {
                    const rows = await where.where(condition).limit(n);
                    raced = true;
                    own.addActive();
                    await db.transaction((tx) => resealSettings(tx as never, own));
                    own.retainActiveOnly();
                    return rows;
                  },
                }),
              };
            },
          };
        };
      },
    });
    const rotation = await rotateServiceKey({ ...options, db: racing as never });
    expect(raced).toBe(true);
    const reopened = await ServiceKeyRing.open(options);
    expect(reopened.current.kid).toBe(rotation.current.kid);
  });
});
