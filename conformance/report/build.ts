/**
 * Builds the run's one report (model.ts) from its results: hand-written and generated checks side by side,
 * failures with their case files and replay commands, coverage and score from the engine (formula in
 * docs/conformance-engine.md), credentials and secrets redacted (D-232).
 */
import { SURFACE_NAMES } from '../catalogue.ts';
import { ratio, score } from '../engine/core/coverage.ts';
import { type CheckResult, type RunOutcome, summarise } from '../runner.ts';
import { describeTarget, type Target } from '../targets/target.ts';
import { redactBody, redactRequest } from './format.ts';
import type {
  CoverageFigures,
  Counts,
  Ratio,
  ReportedCheck,
  ReportedFailure,
  ReportedGate,
  ReportedSurface,
  RunReport,
} from './model.ts';

/** What the report states besides the results. */
export interface ReportContext {
  target?: Target;
  /** The command line, secrets left out. */
  command: string;
  /** The same command with its selection replaced (`--only <id>`), for each check's replay line. */
  replayCheck: (id: string) => string;
  /** The command that replays a case file (`svckit replay <file> …`). */
  replayCase: (caseFile: string) => string;
  startedAt: number;
  finishedAt: number;
  phases: readonly string[];
  seed?: number;
  maxExamples?: number;
  waited: { answers: number; ms: number };
  /** Requests the hand-written checks sent (the engine counts its own). */
  requests: number;
  gates?: ReportedGate[];
  cleanup?: RunReport['cleanup'];
  interrupted: boolean;
}

const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0 });
const addRatio = (a: Ratio, b: Ratio): Ratio => ({ covered: a.covered + b.covered, total: a.total + b.total });

/** The report of one run; case files are numbered in order (`cases/<n>.json`). */
export function buildRunReport(outcome: RunOutcome, context: ReportContext): RunReport {
  let n = 0;
  const checks = outcome.results.map((r) => reportedCheck(r, context, () => `cases/${++n}.json`));
  const surfaces: Record<string, ReportedSurface> = {};
  const surfaceOf = (name: string) => {
    surfaces[name] ??= { checks: zero(), cases: zero(), requests: 0 };
    return surfaces[name];
  };
  for (const c of checks) {
    if (c.surface !== 'all') surfaceOf(c.surface).checks[c.status] += 1;
    for (const [name, counts] of Object.entries(c.cases?.bySurface ?? {})) {
      const s = surfaceOf(name).cases;
      s.passed += counts.passed;
      s.failed += counts.failed;
      s.skipped += counts.skipped;
    }
  }
  const cases = zero();
  for (const c of checks) {
    cases.passed += c.cases?.passed ?? 0;
    cases.failed += c.cases?.failed ?? 0;
    cases.skipped += c.cases?.skipped ?? 0;
  }
  const engine = outcome.engine;
  let total: CoverageFigures | undefined;
  if (engine) {
    for (const t of engine.timings) surfaceOf(t.surface).requests += t.requests;
    for (const [name, cov] of Object.entries(engine.coverage)) {
      const figures = {
        operations: ratio(cov.operations),
        responses: ratio(cov.responses),
        parameters: ratio(cov.parameters),
      };
      surfaceOf(name).coverage = figures;
      total = total
        ? {
            operations: addRatio(total.operations, figures.operations),
            responses: addRatio(total.responses, figures.responses),
            parameters: addRatio(total.parameters, figures.parameters),
          }
        : figures;
    }
  }
  return {
    kind: 'svckit-conformance-report',
    version: 1,
    startedAt: new Date(context.startedAt).toISOString(),
    finishedAt: new Date(context.finishedAt).toISOString(),
    durationMs: Math.max(0, context.finishedAt - context.startedAt),
    target: context.target ? describeTarget(context.target) : null,
    command: context.command,
    phases: [...context.phases],
    ...(context.seed !== undefined ? { seed: context.seed } : {}),
    ...(context.maxExamples !== undefined ? { maxExamples: context.maxExamples } : {}),
    requests: context.requests + (engine?.requests ?? 0),
    waited: context.waited,
    summary: summarise(outcome.results),
    cases,
    ...(total
      ? {
          score: score(cases.passed, cases.failed, total.operations, total.responses, total.parameters),
          coverage: total,
        }
      : {}),
    surfaces,
    checks,
    gates: context.gates ?? [],
    cleanup: context.cleanup ?? null,
    interrupted: context.interrupted,
  };
}

/** The surface name of a result (`institutional`, …), `all` for a generated check. */
const surfaceName = (r: CheckResult): string =>
  SURFACE_NAMES[r.surface] === 'generated' ? 'all' : SURFACE_NAMES[r.surface];

function reportedCheck(r: CheckResult, context: ReportContext, nextCaseFile: () => string): ReportedCheck {
  const out: ReportedCheck = {
    id: r.id,
    title: r.title,
    origin: r.origin === 'generated' ? 'generated' : 'hand-written',
    surface: surfaceName(r),
    severity: r.severity,
    source: 'quote' in r.source ? `spec: "${r.source.quote}"` : r.source.decision,
    status: r.status,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    durationMs: r.durationMs,
    replay: context.replayCheck(r.id),
  };
  if (r.request) {
    const req = redactRequest(r.request);
    out.request = {
      method: req.method,
      url: req.url,
      headers: req.headers ?? {},
      ...(req.body !== undefined
        ? { body: redactBody(typeof req.body === 'string' ? req.body : JSON.stringify(req.body)) }
        : {}),
    };
  }
  if (r.retries?.length) out.retries = [...r.retries];
  if ('expected' in r) out.expected = r.expected;
  if ('actual' in r) out.actual = r.actual;
  if (r.cases) out.cases = r.cases;
  if (r.failures) {
    out.failures = r.failures.map((f): ReportedFailure => {
      const caseFile = nextCaseFile();
      const req = redactRequest({ method: f.request.method, url: f.request.url, headers: f.request.headers });
      return {
        surface: f.case.surface,
        message: f.message,
        operation: f.case.operation,
        reason: f.case.reason,
        case: f.case,
        request: {
          method: f.request.method,
          url: f.request.url,
          headers: req.headers ?? {},
          ...(f.request.body !== undefined ? { body: redactBody(f.request.body) } : {}),
        },
        response: {
          status: f.response.status,
          headers: redactRequest({ method: '', url: '', headers: f.response.headers }).headers ?? {},
          body: redactBody(f.response.body),
        },
        shrunk: f.shrunk,
        caseFile,
        replay: replayOf(f.case.surface, f.request, caseFile, context),
      };
    });
  }
  return out;
}

/**
 * How a kept case is sent again: `svckit replay` for an OpenAPI case; a chain case is a JSON-RPC body posted to
 * the endpoint (replay refuses it, D-193), and a document case is judged in process, not sent (D-194, D-195).
 */
function replayOf(surface: string, request: { url: string }, caseFile: string, context: ReportContext): string {
  if (surface === 'chain')
    return `POST the JSON-RPC body of ${caseFile} (its request.body) to ${request.url}; svckit replay sends no chain case (D-193)`;
  if (surface === 'webhooks' || surface === 'evidence')
    return `judged in process: read ${caseFile} (the ${surface === 'webhooks' ? 'delivery' : 'document'} and the verdict)`;
  return context.replayCase(caseFile);
}
