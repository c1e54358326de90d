// D-129: authentication remembers an active credential for CREDENTIAL_CACHE_MS. A change made through the
// same store takes effect at once; one made elsewhere (another instance on the same database) within
// CREDENTIAL_CACHE_MS. Run on PGlite by `npm test` and on PostgreSQL by `npm run test:postgres`.
import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.ts';
import { mlDsa65 } from '../../src/crypto/index.ts';
import { CREDENTIAL_CACHE_MS, CredentialStore } from '../../src/ledger/credentials.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('svckit_credcache');

describe('remembered credentials (D-129)', () => {
  it('a revocation or a permission change through the same store takes effect on the next request', async () => {
    const store = new CredentialStore(fresh.database.db, systemClock);
    const { row, token } = await store.createApiKey({ name: 'a', permissions: ['accounts:read'], accountIds: null });
    expect((await store.findApiKeyByToken(token))?.permissions).toEqual(['accounts:read']);
    await store.updateApiKey(row.id, { permissions: ['transfers:read'] });
    expect((await store.findApiKeyByToken(token))?.permissions).toEqual(['transfers:read']);
    await store.revokeApiKey(row.id);
    expect(await store.findApiKeyByToken(token)).toBeUndefined();

    const keys = mlDsa65.keygen();
    const mldsa = (await store.registerMldsaKey(keys.publicKey, {
      name: 'm',
      permissions: ['accounts:read'],
      accountIds: null,
    }))!;
    expect((await store.findMldsaKey(keys.publicKey))?.id).toBe(mldsa.id);
    await store.revokeMldsaKey(mldsa.id);
    expect(await store.findMldsaKey(keys.publicKey)).toBeUndefined();
  });

  it('a revocation by another instance takes effect within CREDENTIAL_CACHE_MS, and an unknown key is never remembered', async () => {
    // The serving instance's clock is moved by hand (house rule 6): the memory's bound is read off it exactly.
    const clock = new ManualClock();
    const serving = new CredentialStore(fresh.database.db, clock);
    const elsewhere = new CredentialStore(fresh.database.db, systemClock);
    const { row, token } = await elsewhere.createApiKey({
      name: 'b',
      permissions: ['accounts:read'],
      accountIds: null,
    });
    expect(await serving.findApiKeyByToken(token)).toBeDefined();
    await elsewhere.revokeApiKey(row.id);
    // Still remembered by the serving instance, for at most CREDENTIAL_CACHE_MS from the lookup.
    expect(await serving.findApiKeyByToken(token)).toBeDefined();
    clock.advance(CREDENTIAL_CACHE_MS - 1);
    expect(await serving.findApiKeyByToken(token)).toBeDefined();
    clock.advance(1);
    expect(await serving.findApiKeyByToken(token)).toBeUndefined();

    // A key registered after a failed lookup is accepted at once: failures are not remembered.
    const keys = mlDsa65.keygen();
    expect(await serving.findMldsaKey(keys.publicKey)).toBeUndefined();
    await elsewhere.registerMldsaKey(keys.publicKey, {
      name: 'late',
      permissions: ['accounts:read'],
      accountIds: null,
    });
    expect(await serving.findMldsaKey(keys.publicKey)).toBeDefined();
  });
});
