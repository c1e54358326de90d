// The wallet service keys are shared by every instance on one database (D-218): sealed under the KEK in the
// `settings` table, seeds an older svckit kept in the data directory moved there on first start, and a
// rotation keeps the retired key verifying for its grace period (D-219). Two key rings on one database stand
// for two instances; the session tokens are checked with the real verifier.
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { createPublicKey, createPrivateKey } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { toHex } from '../../src/crypto/index.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { listen } from '../../src/server/main.ts';
import { ServiceKeyRing } from '../../src/server/wallet/keys.ts';
import { SessionTokens } from '../../src/server/wallet/tokens.ts';
import { settings } from '../../src/storage/schema.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('svckit_service_keys');
const scratch = mkdtempSync(path.join(tmpdir(), 'svckit-service-keys-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const GRACE_MS = 3_600_000;
const ISSUER = 'https://wallet.example';
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as never;

describe('the wallet key sets on one database (D-218, D-219)', () => {
  it('two instances sign and verify with one key; after a rotation the retired key verifies until its grace ends', async () => {
    const db = fresh.database.db;
    const keyring = Keyring.open({ dataDir: null });
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

  it('a key set is stored sealed under the KEK and does not open under another KEK', async () => {
    const db = fresh.database.db;
    const keyring = Keyring.open({ dataDir: null });
    const clock = new ManualClock();
    await db.delete(settings).where(eq(settings.key, 'wallet_keys:release-signing'));
    await ServiceKeyRing.open({ db, keyring, name: 'release-signing', clock, graceMs: GRACE_MS });
    const [row] = await db.select().from(settings).where(eq(settings.key, 'wallet_keys:release-signing'));
    expect(row!.value).toMatch(/^kek1:kek_[0-9A-Z]{26}:[A-Za-z0-9_-]+$/);
    const other = Keyring.open({ dataDir: null });
    await expect(
      ServiceKeyRing.open({ db, keyring: other, name: 'release-signing', clock, graceMs: GRACE_MS }),
    ).rejects.toThrow(/same SVC_KEK/);
  });
});

/** The public JWK thumbprint and raw public key of a seed, as an older svckit published them. */
async function publicOf(seedHex: string) {
  const privateKey = createPrivateKey({
    key: Buffer.from(seedHex, 'hex'),
    format: 'raw-seed',
    asymmetricKeyType: 'ml-dsa-65',
  });
  const publicKey = createPublicKey(privateKey);
  return {
    kid: await calculateJwkThumbprint(await exportJWK(publicKey)),
    pubHex: toHex(new Uint8Array(publicKey.export({ format: 'raw-public' }))),
  };
}

describe('seeds an older svckit kept in the data directory (D-218, D-220)', () => {
  it('move into the database at first start, keep their keys and the stand-in salts, and the files go', async () => {
    const dataDir = path.join(scratch, 'upgrade');
    const walletDir = path.join(dataDir, 'wallet');
    mkdirSync(walletDir, { recursive: true, mode: 0o700 });
    const tokenSeed = 'a1'.repeat(32);
    const releaseSeed = 'b2'.repeat(32);
    writeFileSync(path.join(walletDir, 'token-signing.seed'), `${tokenSeed}\n`, { mode: 0o600 });
    writeFileSync(path.join(walletDir, 'release-signing.seed'), `${releaseSeed}\n`, { mode: 0o600 });
    const config = loadConfig({
      SVC_DATA_DIR: dataDir,
      SVC_BASE_PORT: '0',
      SVC_WALLET_PORT: '0',
      SVC_SITE_PORT: '0',
      SVC_BLOCK_TIME: '0',
      SVC_EVIDENCE_AT_START: 'false',
    });
    const email = 'nobody@example.com';
    // The stand-in salt an older svckit answered for an unknown email (HMAC keyed from the token seed).
    const standInKey = createHmac('sha256', 'svckit/managed/unknown-salt/v1')
      .update(Buffer.from(tokenSeed, 'hex'))
      .digest();
    const oldSalt = createHmac('sha256', standInKey).update(email).digest().subarray(0, 16).toString('base64url');

    const token = await publicOf(tokenSeed);
    const release = await publicOf(releaseSeed);
    const { stack } = await listen(config, { persist: true, logLevel: 'silent' });
    try {
      const jwks = await stack.wallet.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.json().keys.map((k: { kid: string }) => k.kid)).toEqual([token.kid]);
      const pub = await stack.site.inject({ method: 'GET', url: '/downloads/svckit-wallet-extension.pub' });
      expect(pub.body.trim()).toBe(release.pubHex);
      const salt = await stack.wallet.inject({ method: 'GET', url: `/managed/salt?email=${email}` });
      expect(salt.json().authKdf.salt).toBe(oldSalt);

      expect(readdirSync(walletDir)).toEqual([]);
      const rows = await stack.database.db.select().from(settings).where(like(settings.key, 'wallet_%'));
      expect(rows.map((r) => r.key).sort()).toEqual([
        'wallet_keys:release-signing',
        'wallet_keys:token-signing',
        'wallet_managed_standin_seed',
      ]);
      for (const row of rows) {
        expect(row.value).toMatch(/^kek1:/);
        expect(row.value).not.toContain(tokenSeed);
        expect(row.value).not.toContain(releaseSeed);
      }
    } finally {
      await stack.close();
    }
    // The next start, with no seed files left, serves the same keys from the database.
    const again = await listen(config, { persist: true, logLevel: 'silent' });
    try {
      const jwks = await again.stack.wallet.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.json().keys.map((k: { kid: string }) => k.kid)).toEqual([token.kid]);
      const pub = await again.stack.site.inject({ method: 'GET', url: '/downloads/svckit-wallet-extension.pub' });
      expect(pub.body.trim()).toBe(release.pubHex);
    } finally {
      await again.stack.close();
    }
  });
});
