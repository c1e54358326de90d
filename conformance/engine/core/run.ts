/**
 * The engine: runs the phases over every surface of the target — the OpenAPI contracts, the chain's OpenRPC
 * contract, and the AsyncAPI messages and evidence schema judged in process — and tallies the generated checks
 * and the coverage per surface (D-185, D-232).
 */
import { performance } from 'node:perf_hooks';
import { SPECS_DIR } from '../../../src/paths.ts';
import { asCheckTallies, runDocumentSurface } from '../documents-run.ts';
import { type EngineSurface, ENGINE_SURFACES, loadContract } from '../openapi/contract.ts';
import type { RunContext } from '../openapi/context.ts';
import { runOpenApiSurface } from '../openapi/run.ts';
import { CHAIN_SURFACE } from '../openrpc/contract.ts';
import { runRpcSurface } from '../openrpc/run.ts';
import { tlsHybridGroup } from './checks.ts';
import { withDeploymentValues } from './arbitrary.ts';
import { engineClient } from './client.ts';
import { emptyCoverage, type SurfaceCoverage } from './coverage.ts';
import { selected } from './registry.ts';
import { AnswerTimes, judgeResponseTimes } from './response-time.ts';
import type { CheckTally, EngineOptions, EngineResult, EngineTarget, PhaseTiming, ResultSurface } from './types.ts';

/** Runs the phases over the surfaces and returns the tallies. */
export function runEngine(target: EngineTarget, options: EngineOptions): Promise<EngineResult> {
  return withDeploymentValues(target.deploymentValues ?? {}, () => runSurfaces(target, options));
}

async function runSurfaces(target: EngineTarget, options: EngineOptions): Promise<EngineResult> {
  const started = performance.now();
  const client = engineClient({
    ...(target.caCert ? { caCert: target.caCert } : {}),
    connections: options.concurrency ?? 16,
  });
  const surfaces: readonly ResultSurface[] = options.surfaces ?? [
    ...(Object.keys(ENGINE_SURFACES) as EngineSurface[]).filter((s) => target.bases[s]),
    ...(target.rpc ? [CHAIN_SURFACE] : []),
  ];
  const tallies = new Map<string, CheckTally>();
  const coverage: Record<string, SurfaceCoverage> = {};
  const timings: PhaseTiming[] = [];
  const times = new AnswerTimes();
  let requests = 0;
  try {
    for (const surface of surfaces) {
      if (options.signal?.aborted) break;
      if (surface === CHAIN_SURFACE) {
        if (!target.rpc) throw new Error('no JSON-RPC endpoint for the chain surface');
        const specsDir = options.specsDir ?? SPECS_DIR;
        const chain = await runRpcSurface({ rpc: target.rpc, client, options, specsDir, tallies, times });
        coverage[surface] = chain.coverage;
        timings.push(...chain.timings);
        requests += chain.requests;
        continue;
      }
      const base = target.bases[surface];
      if (!base) throw new Error(`no base URL for the ${surface} surface`);
      const contract = loadContract(options.specsDir ?? SPECS_DIR, surface);
      const cov = emptyCoverage(contract);
      coverage[surface] = cov;
      const ctx: RunContext = { contract, base, target, client, options, tallies, coverage: cov, times };
      const done = await runOpenApiSurface(ctx);
      timings.push(...done.timings);
      requests += done.requests;
    }
    // The AsyncAPI messages and the evidence schema, judged in process; their cases count as requests.
    for (const surface of options.documents ?? []) {
      if (options.signal?.aborted) break;
      const done = await runDocumentSurface(surface, { ...options, specsDir: options.specsDir ?? SPECS_DIR });
      for (const t of asCheckTallies(done)) if (selected(options, t.check)) tallies.set(`${surface}:${t.check}`, t);
      coverage[surface] = done.coverage;
      for (const t of done.timings) timings.push({ surface, phase: t.phase, requests: t.cases, ms: t.ms });
      requests += done.timings.reduce((n, t) => n + t.cases, 0);
    }
    await tlsHybridGroup(originsOf(target, surfaces), target.caCert, tallies);
    judgeResponseTimes(times, options.responseTime, tallies);
  } finally {
    client.close();
  }
  return {
    seed: options.seed,
    phases: [...options.phases],
    maxExamples: options.maxExamples,
    requests,
    durationMs: Math.round(performance.now() - started),
    timings,
    tallies: [...tallies.values()],
    coverage,
  };
}

/** Each origin the run talked to, with the surface its `tls_hybrid_group` verdict is counted under. */
function originsOf(target: EngineTarget, surfaces: readonly ResultSurface[]): { url: URL; surface: ResultSurface }[] {
  const out = new Map<string, { url: URL; surface: ResultSurface }>();
  for (const surface of surfaces) {
    const url = surface === CHAIN_SURFACE ? target.rpc : target.bases[surface];
    if (url && !out.has(url.origin)) out.set(url.origin, { url, surface });
  }
  // The site serves no contract of the engine: its verdict is counted under the run's first surface.
  const first = surfaces[0];
  if (target.site && first && !out.has(target.site.origin))
    out.set(target.site.origin, { url: target.site, surface: first });
  return [...out.values()];
}
