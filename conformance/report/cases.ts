/**
 * Case files: one per kept failure of a generated check, what `svckit replay` needs to send the request again
 * and judge the answer (D-188). A document case (webhooks, evidence) is judged in process: its file keeps the
 * delivery or document under a kind of its own that `svckit replay` does not send; a chain case has an
 * OpenAPI case's fields with surface `chain`, and replay refuses it too (D-193). Credentials are redacted.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EngineCase } from '../engine/core/cases.ts';
import type { WireRequest } from '../engine/core/client.ts';
import { type DocumentCase, DOCUMENT_SURFACES } from '../engine/core/documents.ts';
import { toJson } from './format.ts';
import type { RunReport } from './model.ts';

/** A case file of an OpenAPI (or chain) case. */
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

const isDocumentSurface = (surface: string) => (DOCUMENT_SURFACES as readonly string[]).includes(surface);

/** Writes the case file of every reported failure that names one; returns the paths. */
export async function writeCaseFiles(report: RunReport, outDir: string): Promise<string[]> {
  const written: string[] = [];
  for (const check of report.checks)
    for (const f of check.failures ?? []) {
      if (!f.caseFile) continue;
      const file: CaseFile | DocumentCaseFile = isDocumentSurface(f.surface)
        ? {
            kind: 'svckit-document-case',
            check: check.id,
            message: f.message,
            case: f.case as DocumentCase,
            request: f.request,
          }
        : {
            kind: 'svckit-conformance-case',
            check: check.id,
            message: f.message,
            case: f.case as EngineCase,
            request: f.request,
          };
      const path = join(outDir, f.caseFile);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${toJson(file, 2)}\n`, 'utf8');
      written.push(path);
    }
  return written;
}
