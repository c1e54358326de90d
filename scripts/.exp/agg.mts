import { readFileSync } from 'node:fs';
const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const byId = new Map<number, any>(profile.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const pkg = (url: string) => { const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url); if (m) return m[1]; if (url.includes('/src/')) return 'src/' + url.split('/src/')[1]; if (url.startsWith('node:')) return url; return url ? url.split('/').slice(-2).join('/') : '(native)'; };
const self = new Map<string, number>(); const incl = new Map<string, number>();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i]);
  const k = n.callFrame.url ? pkg(n.callFrame.url) : n.callFrame.functionName;
  self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0));
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id).callFrame; const key = `${f.functionName} ${f.url.split('/').slice(-2).join('/')}`;
    if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + (dt[i] ?? 0)); }
  }
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log('SELF by package'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log((v / total * 100).toFixed(1).padStart(5), k);
const filter = process.argv[3];
console.log('INCLUSIVE'); for (const [k, v] of [...incl].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log((v / total * 100).toFixed(1).padStart(5), k);
