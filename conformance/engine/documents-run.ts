/**
 * Runs one document surface (`webhooks` or `evidence`) and hands its results to the engine in the engine's
 * own shapes, so the reports count and show them as they do the OpenAPI surfaces. A document case is judged
 * in process: its "request" is the delivery or the document, its "response" the verifier's answer.
 */
import type { Phase } from './core/cases.ts';
import type { DocumentFailure, DocumentResult, DocumentSurface } from './core/documents.ts';
import { runEvidenceCases } from './json-schema/evidence-cases.ts';
import { runMessageCases } from './asyncapi/cases.ts';
import type { CheckTally, EngineFailure } from './core/types.ts';

/** Options shared with the engine's run. */
export interface DocumentRunOptions {
  phases: readonly Phase[];
  seed: number;
  maxExamples: number;
  specsDir: string;
}

/** Runs the cases of `surface`. */
export function runDocumentSurface(surface: DocumentSurface, options: DocumentRunOptions): Promise<DocumentResult> {
  return surface === 'webhooks' ? runMessageCases(options) : runEvidenceCases(options);
}

/** A document failure as an engine failure: the case's input as the request, the answer as the response. */
export function asEngineFailure(f: DocumentFailure): EngineFailure {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.case.input.params)) if (v !== undefined) headers[k.replace(/^header:/, '')] = v;
  const body = typeof f.case.input.body === 'string' ? f.case.input.body : JSON.stringify(f.case.input.body);
  return {
    check: f.check,
    message: f.message,
    case: f.case,
    request: { method: f.case.method, url: `in-process:${f.case.surface}`, headers, body },
    // Judged in process: no HTTP status; the body is the verifier's answer.
    response: {
      status: 0,
      headers: {},
      body: `${f.answer.accepted ? 'accepted' : `refused by the ${f.answer.stage}`}${f.answer.code ? ` (${f.answer.code})` : ''}: ${f.answer.message}`.slice(
        0,
        2000,
      ),
    },
    shrunk: false,
  };
}

/** The tallies of a document surface as engine tallies. */
export function asCheckTallies(result: DocumentResult): CheckTally[] {
  return result.tallies.map((t) => ({ ...t, failures: t.failures.map(asEngineFailure) }));
}
