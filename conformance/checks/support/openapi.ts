// The OpenAPI contracts of specs/ as the checks of surfaces A, D and E read them: parsed once per specs
// directory, and every answer held against the response the contract declares for its operation.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { HttpResult } from '../../http.ts';
import { fileURLToPath } from 'node:url';
import { contractOf } from '../../engine/openapi/contract.ts';
import { judgeAnswer, operationOf, surfaceOfFile } from '../../engine/openapi/judge-answer.ts';
import { DocumentValidator } from '../spec-examples/validator.ts';

/** An OpenAPI 3.1 contract, parsed, with a validator over its schemas (JSON Schema 2020-12). */
export type OpenApiContract = { doc: Record<string, unknown>; validator: DocumentValidator };

const contracts = new Map<string, Promise<OpenApiContract>>();

/** Loads (once per specs directory) the contract `file` of specs/ and compiles its schemas. */
export function openApiContract(specsDir: URL, file: string): Promise<OpenApiContract> {
  const url = new URL(file, specsDir);
  let loaded = contracts.get(url.href);
  if (!loaded) {
    loaded = readFile(url, 'utf8').then((text) => {
      const doc = parseYaml(text) as Record<string, unknown>;
      return { doc, validator: new DocumentValidator(doc, '2020-12', file) };
    });
    contracts.set(url.href, loaded);
  }
  return loaded;
}

/** The generated checks whose judges hold an answer to its contract (D-232). */
const CONTRACT_CHECKS = ['status_code_conformance', 'content_type_conformance', 'response_schema_conformance'] as const;

/**
 * Problems with an answer to `operation` (`METHOD /route` of the contract `file`): a status other than
 * `status`, then what the judges of the generated checks `status_code_conformance`, `content_type_conformance`
 * and `response_schema_conformance` find (D-232). `what` names the case in messages.
 */
export async function operationProblems(
  specsDir: URL,
  file: string,
  operation: string,
  res: HttpResult,
  status: number,
  what = '',
): Promise<string[]> {
  const where = `${operation}${what ? ` (${what})` : ''}`;
  if (res.status !== status) return [`${where}: expected HTTP ${status}, got ${res.status} ${res.text.slice(0, 300)}`];
  const contract = contractOf(fileURLToPath(specsDir), surfaceOfFile(file));
  const verdicts = judgeAnswer(contract, operationOf(contract, operation), res, CONTRACT_CHECKS);
  return verdicts.filter((v) => !v.ok).map((v) => `${where}: ${v.check}: ${v.message ?? 'failed'}`);
}
