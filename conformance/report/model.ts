/**
 * The one report of a conformance run: every check of the registry (hand-written and generated) with its
 * verdict, the generated cases' counts and kept failures, coverage per surface, the rate-limit waits, the gates
 * and what cleanup could not undo. The JSON report is this document; JUnit, HTML and the console are written
 * from it. Counts are stated separately: "a skipped or not-applicable case is not a pass" (evidence document F).
 */
import type { TargetDescription } from '../targets/target.ts';

/** A check's outcome. */
export type Status = 'passed' | 'failed' | 'skipped';

/** Counts stated separately. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Covered out of total. */
export interface Ratio {
  covered: number;
  total: number;
}

/** Contract coverage of the generated cases on one surface, or the run. */
export interface CoverageFigures {
  operations: Ratio;
  responses: Ratio;
  parameters: Ratio;
}

/** A request as reports show it (credentials redacted). */
export interface ReportedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body text sent, if any. */
  body?: string;
}

/** A response as reports show it (body cut at 2,000 characters). */
export interface ReportedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One kept failure of a generated check: its (shrunk) case, the exchange, and how to replay it. */
export interface ReportedFailure {
  /** The surface the case ran on (`institutional`, `chain`, `webhooks`...). */
  surface: string;
  message: string;
  /** The operation or method (`POST /transfers`, `eth_call`), and why the case was made. */
  operation: string;
  reason: string;
  /** The case itself, as `svckit replay` reads it from `caseFile`. */
  case: unknown;
  request: ReportedRequest;
  response: ReportedResponse;
  /** True when fast-check shrank it to this minimal case. */
  shrunk: boolean;
  /** The case file, relative to the report folder, when one was written. */
  caseFile?: string;
  /** A shell command that sends the case again (`svckit replay reports/cases/3.json --base …`). */
  replay: string;
}

/** One check of the registry and its verdict. */
export interface ReportedCheck {
  id: string;
  title: string;
  /** `hand-written` catalogue check, or `generated` from the contracts. */
  origin: 'hand-written' | 'generated';
  /** The surface's name (`institutional`, `webhooks`, `chain`, `explorer`, `wallet`, `evidence`, `admin`, `transport`, `specs`), or `all` for a generated check over every surface. */
  surface: string;
  severity: 'MUST' | 'SHOULD';
  /** The specification quote or the decision id it enforces. */
  source: string;
  status: Status;
  /** Why it failed or was skipped. */
  reason?: string;
  durationMs: number;
  /** A hand-written check's exchange and its expected and actual values. */
  request?: ReportedRequest;
  expected?: unknown;
  actual?: unknown;
  /** Generated checks: the cases judged, in total and per surface, and why cases were skipped. */
  cases?: Counts & { bySurface: Record<string, Counts>; skipReasons: string[] };
  /** Generated checks: kept failures, minimal cases first. */
  failures?: ReportedFailure[];
  /** One line per request sent again after a rate-limit answer it waited out (D-180). */
  retries?: string[];
  /** The command that runs this check alone again. */
  replay: string;
}

/** One surface's figures. */
export interface ReportedSurface {
  /** Check verdicts whose surface this is. */
  checks: Counts;
  /** Generated cases judged on it. */
  cases: Counts;
  /** Requests sent to it (cases judged in process for the webhooks and evidence documents). */
  requests: number;
  coverage?: CoverageFigures;
}

/** A CI gate (`--min-score`, `--min-coverage`) and whether the run met it. */
export interface ReportedGate {
  name: string;
  ok: boolean;
  message: string;
}

/** The report of one run. */
export interface RunReport {
  kind: 'svckit-conformance-report';
  version: 1;
  /** ISO 8601 UTC times. */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  target: TargetDescription | null;
  /** The command line of the run, secrets left out. */
  command: string;
  /** The generated phases run (empty when none), the seed and fuzz examples per operation. */
  phases: string[];
  seed?: number;
  maxExamples?: number;
  /** Requests sent in the run. */
  requests: number;
  /** Rate-limit answers the run waited out instead of judging, and how long requests were held by the pace or a Retry-After, summed over the origins (each origin's wall-clock hold, D-234). */
  waited: { answers: number; ms: number };
  /** Check verdicts. */
  summary: Counts;
  /** Generated cases' verdicts. */
  cases: Counts;
  /** The coverage score (docs/conformance-engine.md), when generated phases ran. */
  score?: number;
  coverage?: CoverageFigures;
  surfaces: Record<string, ReportedSurface>;
  checks: ReportedCheck[];
  gates: ReportedGate[];
  /** What the run created and undid, and what it could not undo. */
  cleanup: { undone: Record<string, number>; failures: string[] } | null;
  /** The run was interrupted (SIGINT or SIGTERM) before it ended. */
  interrupted: boolean;
}
