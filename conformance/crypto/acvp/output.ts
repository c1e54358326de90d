// The ACVP results file and response files. The results file is what `svckit evidence build` reads
// (conformance.acvp); each response file is the JSON an ACVP client would submit for one vector set.
import { join } from 'node:path';
import { resultsSummary, type VectorResultsFile } from '../results.ts';
import { formatCountsTable, formatTotalsLine, writeJson } from '../report.ts';
import { acvpCountsByImplementation, acvpSkipReasons, type AcvpRun } from './run.ts';

/** The kind tag of an ACVP results file. */
export const ACVP_RESULTS_KIND = 'svckit.acvp-results';

/** The results file's shape (formatVersion 1). */
export interface AcvpResultsFile extends VectorResultsFile<typeof ACVP_RESULTS_KIND, AcvpRun['implementations']> {
  /** Vector provenance. */
  vectors: {
    dir: string;
    sumsFile: string | null;
    filesMatchingSums: number;
    filesNotMatchingSums: string[];
    filesNotListed: string[];
    sets: AcvpRun['sources'];
  };
  /** Options. */
  options: AcvpRun['options'];
  /** Per set and implementation, with groups, failures and skip reasons. */
  sets: AcvpRun['results'];
}

/** Builds the results file object. */
export function acvpResultsFile(run: AcvpRun, reproduce: string): AcvpResultsFile {
  const byImplementation = acvpCountsByImplementation(run);
  return {
    kind: ACVP_RESULTS_KIND,
    formatVersion: 1,
    generatedAt: run.startedAt,
    reproduce,
    vectors: {
      dir: run.vectorsDir,
      sumsFile: run.checksums.sumsFile,
      filesMatchingSums: run.checksums.matched.length,
      filesNotMatchingSums: run.checksums.mismatched,
      filesNotListed: run.checksums.unlisted,
      sets: run.sources,
    },
    implementations: run.implementations,
    options: run.options,
    summary: resultsSummary(byImplementation, acvpSkipReasons(run)),
    sets: run.results,
    durationMs: run.durationMs,
  };
}

/** Writes acvp-results.json and responses/<impl>/<set>.json under `outDir`; returns the paths. */
export async function writeAcvpOutputs(run: AcvpRun, outDir: string, reproduce: string): Promise<string[]> {
  const written: string[] = [];
  for (const [impl, sets] of Object.entries(run.responses)) {
    for (const [set, response] of Object.entries(sets)) {
      // A set this implementation answered nothing of (all skipped) has nothing to submit.
      if (((response[1] as { testGroups?: unknown[] } | undefined)?.testGroups ?? []).length === 0) continue;
      const path = join(outDir, 'responses', impl, `${set}.json`);
      await writeJson(path, response);
      written.push(path);
    }
  }
  const resultsPath = join(outDir, 'acvp-results.json');
  await writeJson(resultsPath, acvpResultsFile(run, reproduce));
  written.push(resultsPath);
  return written;
}

/** The console summary of a run. */
export function formatAcvpConsole(run: AcvpRun): string {
  const rows = run.results.map((r) => ({
    name: r.set,
    implementation: r.implementation,
    counts: r.counts,
    groups: r.groups,
    durationMs: r.durationMs,
  }));
  const lines = [formatCountsTable(`ACVP vectors from ${run.vectorsDir}`, rows), ''];
  if (run.checksums.sumsFile) {
    lines.push(
      `vector files: ${run.checksums.matched.length} match ${run.checksums.sumsFile}, ${run.checksums.mismatched.length} differ, ${run.checksums.unlisted.length} not listed`,
    );
  } else {
    lines.push('vector files: no SHA256SUMS found; digests are recorded in the results file');
  }
  for (const [impl, counts] of Object.entries(acvpCountsByImplementation(run)))
    lines.push(`${impl}: ${formatTotalsLine(counts)}`);
  return lines.join('\n');
}
