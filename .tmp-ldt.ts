import { runAcvp } from './conformance/crypto/acvp/run.ts';
const run = runAcvp({ vectorsDir: '/work/shared/vectors', implementations: ['noble'], only: ['SHA3'], largeData: true });
for (const r of run.results) console.log(r.implementation, r.set, JSON.stringify(r.counts), (r.durationMs/1000).toFixed(1)+'s', JSON.stringify(r.groups.map(g=>[g.tgId, g.counts, g.failures])));
