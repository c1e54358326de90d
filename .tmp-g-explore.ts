import { referenceTarget } from './conformance/targets/reference.ts';
import { buildCatalogue } from './conformance/checks/index.ts';
import { runChecks } from './conformance/runner.ts';
const target = await referenceTarget();
try {
  const results = await runChecks(buildCatalogue(), target, { only: ['rpc', 'transport'] });
  for (const r of results) console.log(r.status.padEnd(7), r.id.padEnd(42), String(r.durationMs).padStart(6), r.reason?.slice(0, 400) ?? '');
} catch (e) { console.error(e); } finally { await target.close!(); process.exit(0); }
