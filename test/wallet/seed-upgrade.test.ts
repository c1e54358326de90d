// Seeds an older svckit kept in `<dataDir>/wallet/*.seed` move into the database at the first start of a
// persisted stack (D-214): the keys, the JWKS and the release key stay what they were, the managed tier's
// stand-in salts do not change (D-216), the values are stored sealed and the files are deleted.
import { createHmac, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { like } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/crypto/index.ts';
import { settings } from '../../src/storage/schema.ts';
import { startTestStack } from '../support/stack.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'svckit-seed-upgrade-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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

describe('seeds an older svckit kept in the data directory (D-214, D-216)', () => {
  it('move into the database at first start, keep their keys and the stand-in salts, and the files go', async () => {
    const dataDir = path.join(scratch, 'upgrade');
    const walletDir = path.join(dataDir, 'wallet');
    mkdirSync(walletDir, { recursive: true, mode: 0o700 });
    const tokenSeed = 'a1'.repeat(32);
    const releaseSeed = 'b2'.repeat(32);
    writeFileSync(path.join(walletDir, 'token-signing.seed'), `${tokenSeed}\n`, { mode: 0o600 });
    writeFileSync(path.join(walletDir, 'release-signing.seed'), `${releaseSeed}\n`, { mode: 0o600 });
    // A kept data directory: the stack persists there, and the second start finds what the first one stored.
    const start = () => startTestStack({ dataDir, env: { SVC_EVIDENCE_AT_START: 'false' } });
    const email = 'nobody@example.com';
    // The stand-in salt an older svckit answered for an unknown email (HMAC keyed from the token seed).
    const standInKey = createHmac('sha256', 'svckit/managed/unknown-salt/v1')
      .update(Buffer.from(tokenSeed, 'hex'))
      .digest();
    const oldSalt = createHmac('sha256', standInKey).update(email).digest().subarray(0, 16).toString('base64url');

    const token = await publicOf(tokenSeed);
    const release = await publicOf(releaseSeed);
    const { stack, close } = await start();
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
      await close();
    }
    // The next start, with no seed files left, serves the same keys from the database.
    const again = await start();
    try {
      const jwks = await again.stack.wallet.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.json().keys.map((k: { kid: string }) => k.kid)).toEqual([token.kid]);
      const pub = await again.stack.site.inject({ method: 'GET', url: '/downloads/svckit-wallet-extension.pub' });
      expect(pub.body.trim()).toBe(release.pubHex);
    } finally {
      await again.close();
    }
  });
});
