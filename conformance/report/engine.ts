// Reports of the contract-driven engine (conformance/engine/): the JSON document, JUnit, console lines and
// one case file per kept failure, which `svckit replay` sends again. Credentials are redacted everywhere.
import type { RpcCase } from '../engine/openrpc/contract.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineCase } from '../engine/core/cases.ts';
import { NAMED_CHECKS } from '../engine/core/names.ts';
import { type DocumentCase, DOCUMENT_CHECKS, DOCUMENT_SURFACES } from '../engine/core/documents.ts';
import type { WireRequest } from '../engine/core/client.ts';
import { type Ratio, ratio, score } from '../engine/core/coverage.ts';
import type { EngineFailure, EngineResult } from '../engine/core/types.ts';
import { redactRequest, toJson } from './format.ts';
import { escapeXmlAttr, escapeXmlText } from './junit.ts';
import { formatEngineHtml } from './engine-html.ts';

/** Counts stated separately, plus the requests sent. */
export interface EngineSummary {
  passed: number;
  failed: number;
  skipped: number;
  requests: number;
}

/** Coverage with its score (formula in docs/conformance-engine.md). */
export interface EngineCoverage {
  operations: Ratio;
  responses: Ratio;
  parameters: Ratio;
  score: number;
}

/** A kept failure as reports show it: the request redacted, and the case file that replays it. */
export interface ReportedFailure extends Omit<EngineFailure, 'request'> {
  request: WireRequest;
  /** Path of the case file, relative to the report folder. */
  caseFile: string;
}

/** The engine's JSON report. */
export interface EngineJsonReport {
  seed: number;
  phases: string[];
  maxExamples: number;
  durationMs: number;
  summary: EngineSummary;
  coverage: EngineCoverage;
  surfaces: Record<string, { summary: EngineSummary; coverage: EngineCoverage; matrix: Record<string, boolean> }>;
  timings: EngineResult['timings'];
  checks: {
    id: string;
    surface: string;
    passed: number;
    failed: number;
    skipped: number;
    skipReasons: string[];
    failures: ReportedFailure[];
  }[];
}

/** A case file: what `svckit replay` needs to send the request again and judge the answer. */
export interface CaseFile {
  kind: 'svckit-conformance-case';
  check: string;
  message: string;
  case: EngineCase;
  /** The request as first sent, credentials redacted. */
  request: WireRequest;
}

/** The case file of a document surface's failure: the delivery or document, judged in process. */
export interface DocumentCaseFile extends Omit<CaseFile, 'kind' | 'case'> {
  kind: 'svckit-document-case';
  case: DocumentCase;
}

const isDocumentCase = (c: EngineCase | DocumentCase | RpcCase): c is DocumentCase =>
  (DOCUMENT_SURFACES as readonly string[]).includes(c.surface);

/** Redacts a wire request's credentials. */
export function redactWire(request: WireRequest): WireRequest {
  const r = redactRequest({ method: request.method, url: request.url, headers: request.headers });
  return { ...request, headers: r.headers ?? {} };
}

function coverageOf(cov: EngineResult['coverage'][string] | undefined, passed: number, failed: number): EngineCoverage {
  const operations = ratio(cov?.operations ?? {});
  const responses = ratio(cov?.responses ?? {});
  const parameters = ratio(cov?.parameters ?? {});
  return { operations, responses, parameters, score: score(passed, failed, operations, responses, parameters) };
}

const add = (a: Ratio, b: Ratio): Ratio => ({ covered: a.covered + b.covered, total: a.total + b.total });

/** Builds the JSON report; case file names are assigned in order (`cases/<n>.json`). */
export function buildEngineJson(result: EngineResult): EngineJsonReport {
  const surfaces: EngineJsonReport['surfaces'] = {};
  const total: EngineSummary = { passed: 0, failed: 0, skipped: 0, requests: result.requests };
  let ops: Ratio = { covered: 0, total: 0 };
  let resp: Ratio = { covered: 0, total: 0 };
  let params: Ratio = { covered: 0, total: 0 };
  const checks: EngineJsonReport['checks'] = [];
  let n = 0;
  for (const [surface, cov] of Object.entries(result.coverage)) {
    const tallies = result.tallies.filter((t) => t.surface === surface);
    const summary: EngineSummary = {
      passed: tallies.reduce((s, t) => s + t.passed, 0),
      failed: tallies.reduce((s, t) => s + t.failed, 0),
      skipped: tallies.reduce((s, t) => s + t.skipped, 0),
      requests: result.timings.filter((t) => t.surface === surface).reduce((s, t) => s + t.requests, 0),
    };
    const coverage = coverageOf(cov, summary.passed, summary.failed);
    surfaces[surface] = { summary, coverage, matrix: cov.responses };
    total.passed += summary.passed;
    total.failed += summary.failed;
    total.skipped += summary.skipped;
    ops = add(ops, coverage.operations);
    resp = add(resp, coverage.responses);
    params = add(params, coverage.parameters);
    for (const check of [...NAMED_CHECKS, ...DOCUMENT_CHECKS]) {
      const t = tallies.find((x) => x.check === check);
      if (!t) continue;
      checks.push({
        id: `generated.${check}`,
        surface,
        passed: t.passed,
        failed: t.failed,
        skipped: t.skipped,
        skipReasons: t.skipReasons,
        failures: t.failures.map((f) => ({ ...f, request: redactWire(f.request), caseFile: `cases/${++n}.json` })),
      });
    }
  }
  return {
    seed: result.seed,
    phases: result.phases,
    maxExamples: result.maxExamples,
    durationMs: result.durationMs,
    summary: total,
    coverage: {
      operations: ops,
      responses: resp,
      parameters: params,
      score: score(total.passed, total.failed, ops, resp, params),
    },
    surfaces,
    timings: result.timings,
    checks,
  };
}

/** Console lines: one per named check with a failure or a skip, then the engine's summary line. */
export function formatEngineConsole(report: EngineJsonReport): string {
  const lines: string[] = [];
  for (const c of report.checks) {
    if (c.failed === 0 && c.skipped === 0) continue;
    lines.push(
      `${c.failed > 0 ? 'FAIL' : 'SKIP'} ${c.id} [${c.surface}] — ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`,
    );
    const f = c.failures[0];
    if (f)
      lines.push(
        `    ${f.message.slice(0, 300)}`,
        `    minimal case: ${f.caseFile} (${f.case.operation}: ${f.case.reason}${'sequence' in f.case && f.case.sequence ? `, ${f.case.sequence}` : ''})`,
      );
    for (const reason of c.skipReasons.slice(0, 3)) lines.push(`    skipped: ${reason}`);
  }
  for (const [surface, s] of Object.entries(report.surfaces))
    lines.push(
      `engine ${surface}: ${s.summary.requests} ${(DOCUMENT_SURFACES as readonly string[]).includes(surface) ? 'cases judged in process' : 'requests'}, ${s.summary.passed} passed, ${s.summary.failed} failed, ${s.summary.skipped} skipped; operations ${s.coverage.operations.covered}/${s.coverage.operations.total}, responses ${s.coverage.responses.covered}/${s.coverage.responses.total}, score ${s.coverage.score}`,
    );
  const t = report.summary;
  lines.push(
    `engine: ${t.requests} requests, ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped; score ${report.coverage.score} (seed ${report.seed})`,
  );
  return lines.join('\n');
}

/** JUnit XML: one testsuite per surface, one testcase per named check. */
export function formatEngineJUnit(report: EngineJsonReport): string {
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svckit conformance engine" tests="${report.checks.length}" failures="${report.checks.filter((c) => c.failed > 0).length}">`,
  ];
  for (const surface of Object.keys(report.surfaces)) {
    const checks = report.checks.filter((c) => c.surface === surface);
    out.push(
      `  <testsuite name="${escapeXmlAttr(`generated ${surface}`)}" tests="${checks.length}" failures="${checks.filter((c) => c.failed > 0).length}" skipped="${checks.filter((c) => c.failed === 0 && c.passed === 0 && c.skipped > 0).length}">`,
    );
    for (const c of checks) {
      out.push(`    <testcase classname="svckit.generated.${escapeXmlAttr(surface)}" name="${escapeXmlAttr(c.id)}">`);
      out.push(
        `      <system-out>${escapeXmlText(`${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`)}</system-out>`,
      );
      if (c.failed > 0) {
        const f = c.failures[0];
        const body = f ? `${f.message}\ncase: ${f.caseFile}\n${toJson(f.case, 2)}` : '';
        out.push(
          `      <failure message="${escapeXmlAttr(f?.message ?? `${c.failed} failed`)}">${escapeXmlText(body)}</failure>`,
        );
      } else if (c.passed === 0 && c.skipped > 0)
        out.push(`      <skipped message="${escapeXmlAttr(c.skipReasons[0] ?? 'skipped')}"/>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

/** File names of the engine's reports. */
export const ENGINE_REPORT_FILES = {
  json: 'conformance-engine.json',
  junit: 'conformance-engine.junit.xml',
  html: 'conformance-engine.html',
} as const;

/** Writes the JSON, JUnit and HTML reports and one case file per kept failure; returns the paths written. */
export async function writeEngineReports(result: EngineResult, outDir: string): Promise<string[]> {
  const report = buildEngineJson(result);
  await mkdir(join(outDir, 'cases'), { recursive: true });
  const written: string[] = [];
  const put = async (name: string, text: string) => {
    const path = join(outDir, name);
    await writeFile(path, text, 'utf8');
    written.push(path);
  };
  await put(ENGINE_REPORT_FILES.json, `${toJson(report, 2)}\n`);
  await put(ENGINE_REPORT_FILES.junit, formatEngineJUnit(report));
  await put(ENGINE_REPORT_FILES.html, formatEngineHtml(report));
  for (const c of report.checks)
    for (const f of c.failures) {
      // A document case (webhooks, evidence) is judged in process: its file keeps the delivery or document,
      // under a kind of its own that `svckit replay` does not send. A chain case has EngineCase's fields with
      // surface `chain`; `svckit replay` refuses it too (D-193).
      const file: CaseFile | DocumentCaseFile = isDocumentCase(f.case)
        ? { kind: 'svckit-document-case', check: c.id, message: f.message, case: f.case, request: f.request }
        : {
            kind: 'svckit-conformance-case',
            check: c.id,
            message: f.message,
            case: f.case as CaseFile['case'],
            request: f.request,
          };
      await writeFile(join(outDir, f.caseFile), `${toJson(file, 2)}\n`, 'utf8');
    }
  return written;
}
