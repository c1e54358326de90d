import { runWycheproof } from './conformance/crypto/wycheproof/run.ts';
const run = runWycheproof({ vectorsDir: '/work/shared/vectors', implementations: ['openssl', 'noble'] });
for (const r of run.results) { console.log(r.implementation.padEnd(8), r.file.padEnd(30), JSON.stringify(r.counts), (r.durationMs/1000).toFixed(2)); for (const g of r.groups) for (const f of g.failures.slice(0,3)) console.log('   ', f); const sk = {}; for (const g of r.groups) Object.assign(sk, g.skipReasons); if (Object.keys(sk).length) console.log('   skip', sk); }
console.log((run.durationMs/1000).toFixed(2));
