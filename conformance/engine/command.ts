/**
 * What `svckit conformance --phases ...` runs: the engine against the chosen target — for the in-process
 * reference, a second stack of its own with the per-IP rate limits lifted (the catalogue's rate-limit checks
 * keep the spec's limits on theirs) — and its reports written next to the catalogue's.
 */
import type { Target } from '../targets/target.ts';
import { PHASES, type Phase } from './cases.ts';
import { DOCUMENT_SURFACES } from './documents.ts';
import type { EngineResult } from './run.ts';

/** Parses `--phases examples,coverage,fuzz`; an unknown phase throws (a usage error). */
export function parsePhases(value: string): Phase[] {
  return value.split(',').map((p) => {
    if (!(PHASES as readonly string[]).includes(p))
      throw new Error(`"--phases" expected a comma-separated list of ${PHASES.join(', ')}, got "${p}"`);
    return p as Phase;
  });
}

/** Parses a non-negative integer option; throws naming the option otherwise. */
export function parseCount(name: string, value: string, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > max)
    throw new Error(`"${name}" expected an integer from 0 to ${max}, got "${value}"`);
  return Number(value);
}

/** Runs the engine and writes its reports into `outDir`; returns the console text and the result. */
export async function runEngineCommand(
  target: Target,
  options: { phases: Phase[]; seed: number; maxExamples: number; outDir: string },
): Promise<{ text: string; result: EngineResult; written: string[] }> {
  const [{ referenceTarget }, { engineTargetOf, UNLIMITED_REFERENCE_ENV }, { runEngine }, report] = await Promise.all([
    import('../targets/reference.ts'),
    import('./target.ts'),
    import('./run.ts'),
    import('../report/engine.ts'),
  ]);
  const own = target.kind === 'reference' ? await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } }) : undefined;
  try {
    const engineTarget = await engineTargetOf(own ?? target);
    const result = await runEngine(engineTarget, {
      phases: options.phases,
      seed: options.seed,
      maxExamples: options.maxExamples,
      // The AsyncAPI messages and the evidence schema, judged in process (docs/conformance-engine.md).
      documents: DOCUMENT_SURFACES,
    });
    const written = await report.writeEngineReports(result, options.outDir);
    return { text: report.formatEngineConsole(report.buildEngineJson(result)), result, written };
  } finally {
    await own?.close?.();
  }
}
