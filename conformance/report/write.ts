import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.ts';
import type { CheckResult } from '../runner.ts';
import type { Target } from '../targets/target.ts';
import { formatJson } from './json.ts';
import { formatJUnit } from './junit.ts';

/** The report file formats writeReports can produce. */
export type ReportFormat = 'junit' | 'json';

/** File name written for each format. */
export const REPORT_FILES: Record<ReportFormat, string> = {
  junit: 'conformance.junit.xml',
  json: 'conformance.json',
};

/** Options for writeReports. */
export interface WriteReportsOptions {
  /** Which formats to write. */
  formats: readonly ReportFormat[];
  /** Directory to write into (created if missing). */
  outDir: string;
  /** The target, recorded in the JSON report. */
  target?: Target;
  /** Clock for the JSON report's generatedAt. */
  clock?: Clock;
}

/** Writes the requested reports and returns the paths written, in the order of `formats`. */
export async function writeReports(results: readonly CheckResult[], options: WriteReportsOptions): Promise<string[]> {
  await mkdir(options.outDir, { recursive: true });
  const written: string[] = [];
  for (const format of new Set(options.formats)) {
    const path = join(options.outDir, REPORT_FILES[format]);
    if (format === 'junit') {
      await writeFile(path, formatJUnit(results), 'utf8');
    } else if (format === 'json') {
      await writeFile(path, formatJson(results, { target: options.target, clock: options.clock }), 'utf8');
    } else {
      throw new Error(`report format expected one of junit, json, got ${JSON.stringify(format)}`);
    }
    written.push(path);
  }
  return written;
}
