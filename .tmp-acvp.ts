import { runAcvp } from './conformance/crypto/acvp/run.ts';
const run = runAcvp({ vectorsDir: '/work/shared/vectors', implementations: ['openssl', 'noble'], onSetDone: (r) => {
  console.log(r.implementation.padEnd(8), r.set.padEnd(28), JSON.stringify(r.counts), (r.durationMs/1000).toFixed(2)+'s');
  for (const g of r.groups) { if (g.failures.length) console.log('   FAIL', g.tgId, g.description, g.failures.slice(0,2)); }
}});
console.log('total s', (run.durationMs/1000).toFixed(1), run.checksums.matched.length, run.checksums.mismatched.length, run.checksums.unlisted.length);
const reasons = {}; for (const r of run.results) for (const g of r.groups) for (const [k,v] of Object.entries(g.skipReasons)) reasons[r.implementation+': '+k]=(reasons[r.implementation+': '+k]??0)+v;
console.log(reasons);
