import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq, gte, inArray, sum, sql } from 'drizzle-orm';
import { privateKeyToAccount, signTransaction } from 'viem/accounts';
import { toHex } from 'viem';
import { loadConfig } from '../../src/config.ts';
import { listen } from '../../src/server/main.ts';
import { parseAmount } from '../../src/ledger/money.ts';
import { accounts, transfers } from '../../src/storage/schema.ts';
const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-eng-'));
const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_BASE_PORT: '0', SVC_WALLET_PORT: '0', SVC_SITE_PORT: '0', SVC_BLOCK_TIME: '0', SVC_RATE_LIMIT: '0' });
const { stack } = await listen(config, { logLevel: 'silent' });
const db = stack.database.db; const up = stack.chain.upstream;
const acc = await stack.ledger.accounts.create({ email: 'a@b.example', dailyLimitWei: parseAmount('l','1000000'), singleLimitWei: parseAmount('l','1000000') }, new Date());
const to = (await stack.ledger.accounts.create({ email: 'b@b.example', dailyLimitWei: 1n, singleLimitWei: 1n }, new Date())).address;
await up.call('anvil_setBalance', [acc.address, '0x' + (10n ** 24n).toString(16)]);
const time = async (name: string, fn: () => Promise<unknown> | unknown, n = 1000) => { for (let i = 0; i < 100; i++) await fn(); const t = performance.now(); for (let i = 0; i < n; i++) await fn(); console.log(name.padEnd(34), ((performance.now() - t) / n * 1000).toFixed(0), 'µs'); };
const tx = { type: 'legacy' as const, chainId: 1111111, nonce: 0, to, value: 1n, gasPrice: 0n, gas: 21000n, data: '0x' as const };
const { PGlite } = await import('@electric-sql/pglite');
const counts = new Map<string, [number, number]>();
let counting = false;
for (const m of ['query', 'exec']) {
  const orig = (PGlite.prototype as any)[m];
  (PGlite.prototype as any)[m] = async function (q: string, ...rest: unknown[]) {
    const t = performance.now();
    try { return await orig.call(this, q, ...rest); } finally {
      if (counting) { const k = String(q).replace(/\s+/g, ' ').slice(0, 110); const c = counts.get(k) ?? [0, 0]; c[0]++; c[1] += performance.now() - t; counts.set(k, c); }
    }
  };
}
const { Session } = await import('node:inspector/promises');
const { writeFileSync } = await import('node:fs');
for (let i = 0; i < 50; i++) await stack.ledger.engine.create({ accountId: acc.id, to, amountWei: 1n });
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.start');
counting = true; const t0 = performance.now(); for (let i = 0; i < 300; i++) await stack.ledger.engine.create({ accountId: acc.id, to, amountWei: 1n });
counting = false; for (const [k, [n, ms]] of [...counts].sort((a, b) => b[1][1] - a[1][1]).slice(0, 30)) console.log(String(n).padStart(5), (ms / n * 1000).toFixed(0).padStart(6), 'µs', k);
console.log('engine.create µs', ((performance.now() - t0) / 300 * 1000).toFixed(0));
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/exp/engine.cpuprofile', JSON.stringify(profile));
await stack.close();
process.exit(0);
