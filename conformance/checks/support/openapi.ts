// The OpenAPI contracts of specs/ as the checks of surfaces A, D and E read them: parsed once per specs
// directory, and every answer held against the response the contract declares for its operation.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { HttpResult } from '../../http.ts';
import { deref, isObject } from '../spec-examples/pointer.ts';
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

/**
 * Problems with an answer to `operation` (`METHOD /route` of the contract `file`): a status other than
 * `status`, a status the contract does not declare for it, a body that is not JSON or fails the declared
 * schema. `what` names the case in messages.
 */
export async function operationProblems(
  specsDir: URL,
  file: string,
  operation: string,
  res: HttpResult,
  status: number,
  what = '',
): Promise<string[]> {
  const { doc, validator } = await openApiContract(specsDir, file);
  const [method, route] = operation.split(' ') as [string, string];
  const where = `${operation}${what ? ` (${what})` : ''}`;
  if (res.status !== status) return [`${where}: expected HTTP ${status}, got ${res.status} ${res.text.slice(0, 300)}`];
  const { node, at } = deref(doc, ['paths', route, method.toLowerCase(), 'responses', String(status)]);
  if (!isObject(node)) return [`${where}: HTTP ${status} is not a status the contract declares`];
  if (!isObject(node.content)) return [];
  if (!/^application\/json\b/.test(res.headers['content-type'] ?? ''))
    return [`${where}: expected application/json, got ${JSON.stringify(res.headers['content-type'])}`];
  if (res.json === undefined) return [`${where}: the body is not JSON: ${res.text.slice(0, 200)}`];
  return validator.validate({ where, value: res.json, schemaAt: [...at, 'content', 'application/json', 'schema'] });
}
