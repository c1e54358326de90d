// Console text and files shared by the crypto runners (ACVP, Wycheproof).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Counts, GroupResult } from './results.ts';

/** One row of a console table: a set and implementation with its counts. */
export interface CountsRow {
  /** Left column, e.g. "ML-DSA-sigGen-FIPS204". */
  name: string;
  /** Implementation id. */
  implementation: string;
  /** Counts. */
  counts: Counts;
  /** Groups, for the failure and skip detail. */
  groups: readonly GroupResult[];
  /** Wall time in ms. */
  durationMs: number;
}

/** A table of counts, failures named by tgId and tcId, and the skip reasons per implementation. */
export function formatCountsTable(title: string, rows: readonly CountsRow[]): string {
  const width = Math.max(12, ...rows.map((r) => r.name.length));
  const lines = [
    title,
    `${'set'.padEnd(width)}  ${'impl'.padEnd(8)}  ${'total'.padStart(6)} ${'passed'.padStart(6)} ${'failed'.padStart(6)} ${'skipped'.padStart(7)}  time`,
  ];
  for (const r of rows) {
    const c = r.counts;
    lines.push(
      `${r.name.padEnd(width)}  ${r.implementation.padEnd(8)}  ${String(c.total).padStart(6)} ${String(c.passed).padStart(6)} ${String(c.failed).padStart(6)} ${String(c.skipped).padStart(7)}  ${(r.durationMs / 1000).toFixed(2)} s`,
    );
  }
  const failures = rows.flatMap((r) =>
    r.groups.flatMap((g) =>
      g.failures.map((f) => `  FAIL ${r.name} [${r.implementation}] tgId ${f.tgId} tcId ${f.tcId}: ${f.reason}`),
    ),
  );
  if (failures.length > 0)
    lines.push(
      '',
      'failures:',
      ...failures.slice(0, 200),
      ...(failures.length > 200 ? [`  ... and ${failures.length - 200} more (see the results file)`] : []),
    );
  const skips = new Map<string, number>();
  for (const r of rows) {
    for (const g of r.groups)
      for (const [reason, n] of Object.entries(g.skipReasons))
        skips.set(`[${r.implementation}] ${reason}`, (skips.get(`[${r.implementation}] ${reason}`) ?? 0) + n);
  }
  if (skips.size > 0)
    lines.push(
      '',
      'skipped (never counted as passes):',
      ...[...skips].map(([reason, n]) => `  ${String(n).padStart(5)}  ${reason}`),
    );
  return lines.join('\n');
}

/** The final line: totals stated separately. */
export function formatTotalsLine(c: Counts): string {
  return `${c.total} cases: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
}

/** Writes pretty JSON, creating the directory. */
export async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, 'utf8');
}
