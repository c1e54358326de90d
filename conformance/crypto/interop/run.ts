// Runs the interoperability matrix over every ordered pair of the three peers and counts it the way
// the evidence document states it: checks (cells run), failed, notApplicable, rows, peers.
import { join } from 'node:path';
import { writeJson } from '../report.ts';
import { mlDsaRow, mlKemRow, type InteropRow } from './matrix.ts';
import { liboqsPeer, noblePeer, opensslPeer, type InteropPeer } from './peers.ts';

/** The kind tag of an interop results file. */
export const INTEROP_RESULTS_KIND = 'svckit.interop-results';

/** Counts of a matrix run; a not-applicable cell is not a check and not a pass. */
export interface InteropSummary {
  /** Cells run (passed + failed). */
  checks: number;
  /** Cells that passed. */
  passed: number;
  /** Cells that failed. */
  failed: number;
  /** Cells not run, each with its reason. */
  notApplicable: number;
  /** Rows: algorithm × ordered pair. */
  rows: number;
  /** Every unordered pair has rows in both directions with at least one check each. */
  bothDirections: boolean;
  /** Negative-control cells run. */
  negativeControls: number;
}

/** The interop results file (formatVersion 1). */
export interface InteropResultsFile {
  /** Always INTEROP_RESULTS_KIND. */
  kind: typeof INTEROP_RESULTS_KIND;
  /** Format version. */
  formatVersion: 1;
  /** When the run started. */
  generatedAt: string;
  /** The command that reproduces the run. */
  reproduce: string;
  /** The peers with their versions. */
  peers: { id: string; name: string; version: string; language: string }[];
  /** Counts. */
  summary: InteropSummary;
  /** Every row and cell. */
  rows: InteropRow[];
  /** Wall time in ms. */
  durationMs: number;
}

/** Runs the matrix with OpenSSL, @noble/post-quantum and liboqs. */
export async function runInterop(reproduce: string): Promise<InteropResultsFile> {
  const started = performance.now();
  const generatedAt = new Date().toISOString();
  const peers: InteropPeer[] = [opensslPeer(), noblePeer(), await liboqsPeer()];
  try {
    const rows: InteropRow[] = [];
    for (const p of peers) {
      for (const c of peers) {
        if (p === c) continue;
        rows.push(mlDsaRow(p, c), mlKemRow(p, c));
      }
    }
    return {
      kind: INTEROP_RESULTS_KIND,
      formatVersion: 1,
      generatedAt,
      reproduce,
      peers: peers.map(({ id, name, version, language }) => ({ id, name, version, language })),
      summary: summariseInterop(rows),
      rows,
      durationMs: performance.now() - started,
    };
  } finally {
    for (const peer of peers) peer.close();
  }
}

/** Counts rows and cells. */
export function summariseInterop(rows: readonly InteropRow[]): InteropSummary {
  const cells = rows.flatMap((r) => r.cells);
  const count = (status: string) => cells.filter((c) => c.status === status).length;
  const ran = (r: InteropRow) => r.cells.some((c) => c.status !== 'notApplicable');
  const bothDirections = rows.every(
    (r) =>
      ran(r) &&
      rows.some((o) => o.algorithm === r.algorithm && o.producer === r.consumer && o.consumer === r.producer && ran(o)),
  );
  return {
    checks: count('passed') + count('failed'),
    passed: count('passed'),
    failed: count('failed'),
    notApplicable: count('notApplicable'),
    rows: rows.length,
    bothDirections: rows.length > 0 && bothDirections,
    negativeControls: cells.filter((c) => c.negativeControl && c.status !== 'notApplicable').length,
  };
}

/** Writes interop-results.json under `outDir`; returns its path. */
export async function writeInteropOutputs(results: InteropResultsFile, outDir: string): Promise<string> {
  const path = join(outDir, 'interop-results.json');
  await writeJson(path, results);
  return path;
}

/** The console summary: one line per row, failures and not-applicable reasons, then the counts. */
export function formatInteropConsole(results: InteropResultsFile): string {
  const lines = [`Interoperability matrix: ${results.peers.map((p) => `${p.name} ${p.version}`).join(', ')}`];
  for (const row of results.rows) {
    const marks = row.cells
      .map((c) => (c.status === 'passed' ? 'ok' : c.status === 'failed' ? 'FAIL' : 'n/a'))
      .join(' ');
    lines.push(`  ${row.algorithm.padEnd(10)} ${row.producer.padEnd(7)} -> ${row.consumer.padEnd(7)}  ${marks}`);
    for (const cell of row.cells)
      if (cell.status !== 'passed')
        lines.push(`      ${cell.status === 'failed' ? 'FAIL' : 'n/a '} ${cell.check}: ${cell.reason}`);
  }
  const s = results.summary;
  lines.push(
    `${s.checks} checks: ${s.passed} passed, ${s.failed} failed; ${s.notApplicable} not applicable; ${s.rows} rows; ${s.negativeControls} negative controls; both directions: ${s.bothDirections ? 'yes' : 'no'}`,
  );
  return lines.join('\n');
}
