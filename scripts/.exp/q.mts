import { openDatabase } from '../../src/storage/database.ts';
import { CredentialStore } from '../../src/ledger/credentials.ts';
import { AccountStore } from '../../src/ledger/accounts.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { mlDsa65, toHex, fromHex } from '../../src/crypto/index.ts';
import { parseAmount } from '../../src/ledger/money.ts';
const { db } = await openDatabase({ dataDir: null });
const creds = new CredentialStore(db, () => new Date());
const accounts = new AccountStore(db, Keyring.open({ dataDir: null }));
const { token } = await creds.createApiKey({ name: 'x', permissions: ['accounts:read'], accountIds: null });
const keys = mlDsa65.keygen();
await creds.registerMldsaKey(keys.publicKey, { name: 'x', permissions: ['accounts:read'], accountIds: null });
const acc = await accounts.create({ email: 'a@b.example', dailyLimitWei: parseAmount('l','1'), singleLimitWei: parseAmount('l','1') }, new Date());
const hex = toHex(keys.publicKey);
const time = async (name: string, fn: () => Promise<unknown> | unknown, n = 2000) => { for (let i = 0; i < 200; i++) await fn(); const t = performance.now(); for (let i = 0; i < n; i++) await fn(); console.log(name.padEnd(30), ((performance.now() - t) / n * 1000).toFixed(0), 'µs'); };
const { sql } = await import('drizzle-orm');
for (let r = 0; r < 2; r++) {
await time('select 1', () => db.execute(sql`select 1`));
await time('findApiKeyByToken', () => creds.findApiKeyByToken(token));
await time('findMldsaKey', () => creds.findMldsaKey(hex));
await time('accounts.find', () => accounts.find(acc.id));
}
const sig = mlDsa65.sign(keys.secretKey, new TextEncoder().encode('m'));
await time('mlDsa65.verify', () => mlDsa65.verify(keys.publicKey, new TextEncoder().encode('m'), sig));
await time('fromHex 3904+6618', () => { fromHex(hex); fromHex(toHex(sig)); });
const { createPublicKey, verify } = await import('node:crypto');
const ko = createPublicKey({ key: keys.publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-65' } as any);
await time('createPublicKey', () => createPublicKey({ key: keys.publicKey, format: 'raw-public', asymmetricKeyType: 'ml-dsa-65' } as any));
await time('verify(KeyObject)', () => verify(null, new TextEncoder().encode('m'), ko, sig));
const header = `SVC-MLDSA ${hex}.${Date.now()}.${toHex(sig)}`;
const MLDSA = /^SVC-MLDSA ([0-9a-fA-F]{3904})\.(\d{1,16})\.([0-9a-fA-F]{6618})$/;
await time('regex', () => MLDSA.exec(header));

process.exit(0);
