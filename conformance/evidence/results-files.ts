// Reading the results files the evidence is built from. Each must be the file a runner wrote (its
// kind tag) with counts that add up; anything else is refused with the file named, so no count in
// the evidence document can come from a hand-edited or half-written file unnoticed.
import { readFileSync } from 'node:fs';
import { ACVP_RESULTS_KIND, type AcvpResultsFile } from '../crypto/acvp/output.ts';
import { INTEROP_RESULTS_KIND, type InteropResultsFile } from '../crypto/interop/run.ts';
import { countsConsistent, sumCounts, type Counts } from '../crypto/results.ts';
import { WYCHEPROOF_RESULTS_KIND, type WycheproofResultsFile } from '../crypto/wycheproof/output.ts';
import type { RunReport } from '../report/model.ts';

/** Reads and checks an ACVP results file. */
export function readAcvpResults(path: string): AcvpResultsFile {
  const file = readKind<AcvpResultsFile>(path, ACVP_RESULTS_KIND);
  checkCountsFile(
    path,
    file.summary.total,
    file.sets.map((s) => s.counts),
  );
  return file;
}

/** Reads and checks a Wycheproof results file. */
export function readWycheproofResults(path: string): WycheproofResultsFile {
  const file = readKind<WycheproofResultsFile>(path, WYCHEPROOF_RESULTS_KIND);
  checkCountsFile(
    path,
    file.summary.total,
    file.files.map((f) => f.counts),
  );
  return file;
}

/** Reads and checks an interop results file. */
export function readInteropResults(path: string): InteropResultsFile {
  const file = readKind<InteropResultsFile>(path, INTEROP_RESULTS_KIND);
  const cells = file.rows.flatMap((r) => r.cells);
  const s = file.summary;
  if (s.checks !== s.passed + s.failed || s.checks + s.notApplicable !== cells.length || s.rows !== file.rows.length) {
    throw new Error(`${path}: the interop summary does not match its rows and cells`);
  }
  return file;
}

/** Protocol conformance counts from the JSON report of `svckit conformance --report json`. */
export interface ProtocolSummary {
  /** Checks in the report. */
  checks: number;
  /** Passed. */
  passed: number;
  /** Failed. */
  failed: number;
  /** Skipped (never passes). */
  skipped: number;
  /** The command that reproduces the report. */
  reproduce: string;
  /** When the report was produced. */
  generatedAt: string;
}

/** Reads the conformance JSON report (conformance.json) and recounts its results. */
export function readProtocolReport(path: string): ProtocolSummary {
  const report = readJson(path) as Partial<RunReport>;
  if (
    report.kind !== 'svckit-conformance-report' ||
    !Array.isArray(report.checks) ||
    !report.summary ||
    typeof report.finishedAt !== 'string'
  ) {
    throw new Error(
      `${path}: expected the JSON report of "svckit conformance --report json" (kind svckit-conformance-report, finishedAt, summary, checks)`,
    );
  }
  const recount = { passed: 0, failed: 0, skipped: 0 };
  for (const r of report.checks) {
    if (r.status !== 'passed' && r.status !== 'failed' && r.status !== 'skipped')
      throw new Error(`${path}: result ${r.id} has status ${JSON.stringify(r.status)}`);
    recount[r.status] += 1;
  }
  const { passed, failed, skipped } = report.summary;
  if (passed !== recount.passed || failed !== recount.failed || skipped !== recount.skipped) {
    throw new Error(
      `${path}: the summary (${passed}/${failed}/${skipped}) does not match its results (${recount.passed}/${recount.failed}/${recount.skipped})`,
    );
  }
  return {
    checks: report.checks.length,
    ...recount,
    reproduce: reproduceConformance(report),
    generatedAt: report.finishedAt,
  };
}

function reproduceConformance(report: Partial<RunReport>): string {
  const target = report.target;
  if (!target || target.kind === 'reference') return 'npx svckit conformance --report json --out reports';
  if (target.kind === 'specs-only') return 'npx svckit conformance --target specs --report json --out reports';
  const urls = [
    target.base && `--base ${target.base}`,
    target.wallet && `--wallet ${target.wallet}`,
    target.site && `--site ${target.site}`,
  ].filter(Boolean);
  return `npx svckit conformance ${urls.join(' ')} --report json --out reports`;
}

function readKind<T extends { kind: string; formatVersion: number }>(path: string, kind: string): T {
  const data = readJson(path) as Partial<T>;
  if (data.kind !== kind || data.formatVersion !== 1) {
    throw new Error(`${path}: expected a ${kind} file (formatVersion 1), got kind ${JSON.stringify(data.kind)}`);
  }
  return data as T;
}

function checkCountsFile(path: string, total: Counts, parts: Counts[]): void {
  const sum = sumCounts(parts);
  if (
    !countsConsistent(total) ||
    !parts.every(countsConsistent) ||
    !(['total', 'passed', 'failed', 'skipped'] as const).every((k) => sum[k] === total[k])
  ) {
    throw new Error(
      `${path}: counts do not add up (total ${JSON.stringify(total)}, sum of parts ${JSON.stringify(sum)})`,
    );
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read results file ${path}: ${(error as Error).message}`);
  }
}
