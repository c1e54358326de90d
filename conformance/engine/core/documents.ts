/**
 * The engine's document surfaces: contracts that are not OpenAPI and are judged in process, not over HTTP —
 * `webhooks` (the AsyncAPI messages of specs/webhooks.asyncapi.yaml, held against `verifyWebhook`,
 * messages.ts) and `evidence` (specs/evidence.schema.json, fed to `evidence verify`, evidence-cases.ts).
 * They report like the OpenAPI surfaces: tallies per named check, coverage maps, timings per phase.
 */
import type { CaseInput, Phase } from './cases.ts';
import type { SurfaceCoverage } from './coverage.ts';

/** The document surfaces, in run order. */
export const DOCUMENT_SURFACES = ['webhooks', 'evidence'] as const;
/** One document surface. */
export type DocumentSurface = (typeof DOCUMENT_SURFACES)[number];

/** The named checks of the document surfaces (ids `generated.<name>`, as for the OpenAPI surfaces). */
export const DOCUMENT_CHECKS = [
  'message_valid_accepted',
  'message_tampered_refused',
  'message_invalid_refused',
  'evidence_valid_verified',
  'evidence_schema_refused',
  'evidence_rule_refused',
  'evidence_cli_agrees',
] as const;
/** One named check of a document surface. */
export type DocumentCheck = (typeof DOCUMENT_CHECKS)[number];

/**
 * A generated case of a document surface: plain data, like an OpenAPI case. `operation` is the message's
 * event type (`payment.settled`) or `evidence document`; `input.params` holds the delivery headers
 * (`header:X-SVC-Signature`), `input.body` the payload or document.
 */
export interface DocumentCase {
  surface: DocumentSurface;
  operation: string;
  phase: Phase;
  kind: 'positive' | 'negative';
  reason: string;
  input: CaseInput;
  method: string;
  authenticated: false;
}

/** What the in-process consumer answered: accepted, or refused by which stage and why. */
export interface DocumentAnswer {
  accepted: boolean;
  /** `verifier` (verifyWebhook, or a rule of `evidence verify`), `schema`, or `cli`. */
  stage?: string;
  /** The refusal's code or rule (e.g. `SIGNATURE_MISMATCH`, `counts.consistent`). */
  code?: string;
  message: string;
}

/** A failure of a document check: the case, and the answer that broke the check. */
export interface DocumentFailure {
  check: DocumentCheck;
  message: string;
  case: DocumentCase;
  answer: DocumentAnswer;
}

/** Counts of one document check. */
export interface DocumentTally {
  surface: DocumentSurface;
  check: DocumentCheck;
  passed: number;
  failed: number;
  skipped: number;
  skipReasons: string[];
  failures: DocumentFailure[];
}

/** Everything one document surface produced. */
export interface DocumentResult {
  surface: DocumentSurface;
  tallies: DocumentTally[];
  coverage: SurfaceCoverage;
  timings: { phase: Phase; cases: number; ms: number }[];
}

/** Tallies of a surface's checks, and the verdict recorder. */
export function tallyBook(surface: DocumentSurface, checks: readonly DocumentCheck[], maxFailures = 20) {
  const tallies = new Map<DocumentCheck, DocumentTally>(
    checks.map((check) => [check, { surface, check, passed: 0, failed: 0, skipped: 0, skipReasons: [], failures: [] }]),
  );
  const get = (check: DocumentCheck) => tallies.get(check) as DocumentTally;
  return {
    tallies,
    /** Records a verdict: `problem` undefined is a pass. */
    verdict(check: DocumentCheck, c: DocumentCase, answer: DocumentAnswer, problem: string | undefined): void {
      const t = get(check);
      if (problem === undefined) {
        t.passed += 1;
        return;
      }
      t.failed += 1;
      if (t.failures.length < maxFailures) t.failures.push({ check, message: problem, case: c, answer });
    },
    /** Records a case the check could not judge; a skip never passes. */
    skip(check: DocumentCheck, reason: string): void {
      const t = get(check);
      t.skipped += 1;
      if (!t.skipReasons.includes(reason)) t.skipReasons.push(reason);
    },
  };
}
