/**
 * `npm run bench -- conformance`: the contract-driven conformance engine against the in-process reference
 * stack (real TLS, Anvil, PGlite), per-IP rate limits lifted. Prints, as Markdown, the generated requests
 * sent and checked per second and the wall time of each phase per surface. Target: at least 30,000
 * generated requests on the institutional surface in 180 s or less.
 *
 * Settings: BENCH_MAX_EXAMPLES (fuzz cases per institutional operation, default 3,750: 8 operations make
 * 30,000), BENCH_OTHER_MAX_EXAMPLES (per operation of the other surfaces, default 100), BENCH_CONCURRENCY
 * (requests in flight, default 16), BENCH_SEED (default 1).
 */
import { type BenchFigure, figure, machine, reportResult } from './result.ts';
import { runEngine } from '../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../conformance/engine/target.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';

const MAX_EXAMPLES = Number(process.env.BENCH_MAX_EXAMPLES ?? 3750);
const OTHER_MAX_EXAMPLES = Number(process.env.BENCH_OTHER_MAX_EXAMPLES ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SEED = Number(process.env.BENCH_SEED ?? 1);

/** One row of the figures. */
export interface Figure {
  surface: string;
  phase: string;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
}

/** The figures of runs: one row per surface and phase, then a total row per surface. */
export function figures(results: readonly EngineResult[]): Figure[] {
  const rows: Figure[] = [];
  const row = (surface: string, phase: string, requests: number, ms: number) =>
    rows.push({ surface, phase, requests, seconds: ms / 1000, requestsPerSecond: ms > 0 ? requests / (ms / 1000) : 0 });
  for (const result of results) {
    const surfaces = [...new Set(result.timings.map((t) => t.surface))];
    for (const surface of surfaces) {
      const timings = result.timings.filter((t) => t.surface === surface);
      for (const t of timings) row(surface, t.phase, t.requests, t.ms);
      row(
        surface,
        'all',
        timings.reduce((n, t) => n + t.requests, 0),
        timings.reduce((n, t) => n + t.ms, 0),
      );
    }
  }
  return rows;
}

const target = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } });
try {
  const engineTarget = await engineTargetOf(target);
  const phases = ['examples', 'coverage', 'fuzz'] as const;
  const options = { phases, seed: SEED, concurrency: CONCURRENCY, shrinkMs: 5_000 };
  const institutional = await runEngine(engineTarget, {
    ...options,
    maxExamples: MAX_EXAMPLES,
    surfaces: ['institutional'],
  });
  const others = await runEngine(engineTarget, {
    ...options,
    maxExamples: OTHER_MAX_EXAMPLES,
    surfaces: ['explorer', 'wallet', 'admin'],
  });
  const rows = figures([institutional, others]);
  console.log(`## Conformance engine (seed ${SEED}, concurrency ${CONCURRENCY})\n`);
  console.log('| surface | phase | requests | wall time (s) | requests/s |');
  console.log('|---|---|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.surface} | ${r.phase} | ${r.requests} | ${r.seconds.toFixed(1)} | ${r.requestsPerSecond.toFixed(0)} |`,
    );
  const inst = rows.find((r) => r.surface === 'institutional' && r.phase === 'all');
  const tallies = [institutional, others].flatMap((r) => r.tallies);
  const failed = tallies.reduce((n, t) => n + t.failed, 0);
  console.log(
    `\nInstitutional: ${inst?.requests} generated requests in ${inst?.seconds.toFixed(1)} s (target: at least 30,000 in 180 s or less: ${inst && inst.requests >= 30_000 && inst.seconds <= 180 ? 'met' : 'NOT met'}); ${failed} failed verdicts in all.`,
  );
  for (const t of tallies.filter((x) => x.failed > 0)) {
    const operations = [...new Set(t.failures.map((f) => f.case.operation))].join(', ');
    console.log(`- ${t.surface} generated.${t.check}: ${t.failed} failed (${operations})`);
  }
  const benchFigures: BenchFigure[] = [
    figure('institutional generated requests', inst?.requests ?? 0, 'requests', {
      limit: 30_000,
      comparison: 'at-least',
      description: 'at least 30,000 generated requests on surface A',
    }),
    figure('institutional wall time', inst?.seconds ?? Number.POSITIVE_INFINITY, 's', {
      limit: 180,
      comparison: 'at-most',
      description: 'in 180 s or less on the 2-core machine',
    }),
    figure('failed verdicts', failed, 'verdicts', { limit: 0, comparison: 'at-most', description: 'none' }),
    ...rows.map((r) => figure(`${r.surface} ${r.phase}`, r.requestsPerSecond, 'req/s')),
  ];
  reportResult({ bench: 'conformance', machine: machine(), figures: benchFigures });
} finally {
  await target.close?.();
}
