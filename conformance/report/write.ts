/**
 * Writes the run's reports from its one report document (D-232): only the formats asked for (`--report
 * json,junit,html,ndjson`), and one case file per kept failure of a generated check, which `svckit replay`
 * sends again. The NDJSON report is written as the run goes (stream.ts); the console summary is always shown.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckResult } from '../runner.ts';
import { writeCaseFiles } from './cases.ts';
import { toJson } from './format.ts';
import { formatHtml } from './html.ts';
import { formatJUnit } from './junit.ts';
import type { RunReport } from './model.ts';

/** Every report format; `ndjson` is the event stream, written while the run goes. */
export const REPORT_FORMATS = ['json', 'junit', 'html', 'ndjson'] as const;

/** One report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** File name written for each format. */
export const REPORT_FILES: Record<ReportFormat, string> = {
  json: 'conformance.json',
  junit: 'conformance.junit.xml',
  html: 'conformance.html',
  ndjson: 'conformance.ndjson',
};

/** Writes the requested reports of a finished run (all but `ndjson`) and the case files; returns the paths. */
export async function writeRunReports(
  report: RunReport,
  results: readonly CheckResult[],
  options: { formats: readonly ReportFormat[]; outDir: string },
): Promise<string[]> {
  await mkdir(options.outDir, { recursive: true });
  const written: string[] = [];
  const put = async (format: ReportFormat, text: string) => {
    const path = join(options.outDir, REPORT_FILES[format]);
    await writeFile(path, text, 'utf8');
    written.push(path);
  };
  for (const format of new Set(options.formats)) {
    if (format === 'json') await put(format, `${toJson(report, 2)}\n`);
    else if (format === 'junit') await put(format, formatJUnit(results));
    else if (format === 'html') await put(format, formatHtml(report));
  }
  written.push(...(await writeCaseFiles(report, options.outDir)));
  return written;
}
