// The Wycheproof results file and console summary.
import { join } from 'node:path';
import { mergeSkipReasons, resultsSummary, type VectorResultsFile } from '../results.ts';
import { formatCountsTable, formatTotalsLine, writeJson } from '../report.ts';
import { wycheproofCountsByImplementation, type WycheproofRun } from './run.ts';

/** The kind tag of a Wycheproof results file. */
export const WYCHEPROOF_RESULTS_KIND = 'svckit.wycheproof-results';

/** The results file's shape (formatVersion 1). */
export interface WycheproofResultsFile
  extends VectorResultsFile<typeof WYCHEPROOF_RESULTS_KIND, WycheproofRun['implementations']> {
  /** Files read, with digests. */
  vectors: { dir: string; files: WycheproofRun['sources'] };
  /** Per file and implementation. */
  files: WycheproofRun['results'];
}

/** Builds the results file object. */
export function wycheproofResultsFile(run: WycheproofRun, reproduce: string): WycheproofResultsFile {
  const byImplementation = wycheproofCountsByImplementation(run);
  return {
    kind: WYCHEPROOF_RESULTS_KIND,
    formatVersion: 1,
    generatedAt: run.startedAt,
    reproduce,
    vectors: { dir: run.vectorsDir, files: run.sources },
    implementations: run.implementations,
    summary: resultsSummary(byImplementation, mergeSkipReasons(run.results.flatMap((r) => r.groups))),
    files: run.results,
    durationMs: run.durationMs,
  };
}

/** Writes wycheproof-results.json under `outDir`; returns its path. */
export async function writeWycheproofOutputs(run: WycheproofRun, outDir: string, reproduce: string): Promise<string> {
  const path = join(outDir, 'wycheproof-results.json');
  await writeJson(path, wycheproofResultsFile(run, reproduce));
  return path;
}

/** The console summary of a run. */
export function formatWycheproofConsole(run: WycheproofRun): string {
  const rows = run.results.map((r) => ({
    name: r.file,
    implementation: r.implementation,
    counts: r.counts,
    groups: r.groups,
    durationMs: r.durationMs,
  }));
  const lines = [
    formatCountsTable(
      `Wycheproof vectors from ${run.vectorsDir} (valid must be accepted, invalid rejected, acceptable either)`,
      rows,
    ),
    '',
  ];
  for (const [impl, counts] of Object.entries(wycheproofCountsByImplementation(run)))
    lines.push(`${impl}: ${formatTotalsLine(counts)}`);
  return lines.join('\n');
}
