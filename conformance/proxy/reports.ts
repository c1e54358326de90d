/**
 * What the proxy writes (D-249): the run reports of `svckit conformance` (JSON, JUnit, HTML and case files) built
 * from its ledger, and the HAR 1.2 file of the traffic, redacted as the conformance HAR is. The HAR file is a
 * valid document after every entry: each entry overwrites the closing brackets and writes them again, so a
 * long run keeps no entry in memory and a proxy stopped hard leaves a readable file.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CheckResult } from '../runner.ts';
import { buildRunReport } from '../report/build.ts';
import { toJson } from '../report/format.ts';
import type { RunReport } from '../report/model.ts';
import { harRecorder } from '../report/stream.ts';
import { type ReportFormat, writeRunReports } from '../report/write.ts';
import type { Target } from '../targets/target.ts';
import type { ProxiedExchange } from './exchange.ts';
import type { ProxyLedger } from './ledger.ts';

/** What the report says besides the ledger. */
export interface ProxyReportContext {
  target: Target;
  command: string;
  /** `--upstream`, for the replay lines of case files. */
  upstream: string;
  formats: readonly ReportFormat[];
  outDir: string;
  interrupted: boolean;
}

/** Builds the report of the traffic so far and writes the formats asked for; returns the report and the paths. */
export async function writeProxyReports(
  ledger: ProxyLedger,
  context: ProxyReportContext,
): Promise<{ report: RunReport; results: CheckResult[]; written: string[] }> {
  const { engine, results } = ledger.results();
  const report = buildRunReport(
    { results, engine },
    {
      target: context.target,
      command: context.command,
      replayCheck: (id) => `svckit conformance --base ${context.upstream} --phases coverage --only ${id}`,
      replayCase: (caseFile) => `svckit replay ${join(context.outDir, caseFile)} --base ${context.upstream}`,
      startedAt: ledger.startedAt,
      finishedAt: Date.now(),
      phases: [],
      waited: { answers: 0, ms: 0 },
      requests: 0,
      interrupted: context.interrupted,
    },
  );
  const written = await writeRunReports(report, results, { formats: context.formats, outDir: context.outDir });
  return { report, results, written };
}

/** A HAR writer that appends each exchange to `path` as it is judged; `close()` ends the file. */
export function harWriter(
  path: string,
  version: string,
): { add(ex: ProxiedExchange, durationMs: number): void; close(): void } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  const head = `{"log":{"version":"1.2","creator":{"name":"svckit","version":${JSON.stringify(version)}},"entries":[`;
  const tail = ']}}\n';
  writeSync(fd, head + tail);
  let at = Buffer.byteLength(head);
  let count = 0;
  let open = true;
  // The conformance HAR recorder makes (and redacts) each entry; it is taken out of it at once.
  const recorder = harRecorder(path, version);
  return {
    add: (ex, durationMs) => {
      if (!open) return;
      recorder.sink({
        type: 'case_sent',
        at: new Date().toISOString(),
        n: ex.n,
        source: 'proxied',
        durationMs: Math.round(durationMs * 1000) / 1000,
        rateLimited: ex.response.status === 429,
        request: ex.request,
        ...(ex.response.status === 0
          ? { error: ex.response.text }
          : { response: { status: ex.response.status, headers: ex.response.headers, body: ex.response.text } }),
      });
      const entry = recorder.har().log.entries.pop();
      if (!entry) return;
      const text = `${count === 0 ? '' : ','}\n${toJson(entry)}`;
      writeSync(fd, text + tail, at);
      at += Buffer.byteLength(text);
      count += 1;
    },
    close: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
