// The first checks: they need only the contract files in specs/. Each validates every example of one
// contract against its own schema (the mocks and the conformance checks replay those examples, so an
// example that does not fit its schema would make them test the wrong thing).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { Check, CheckSource, CheckVerdict } from '../../catalogue.ts';
import { checkDefiner } from '../define.ts';
import { collectAsyncApiExamples } from './asyncapi.ts';
import { checkEvidenceExamples } from './evidence.ts';
import { collectOpenApiExamples } from './openapi.ts';
import { collectOpenRpcExamples } from './openrpc.ts';
import { isObject } from './pointer.ts';
import { DocumentValidator, type Dialect, type ExampleCase } from './validator.ts';

/** The contract formats in specs/. */
export type ContractFormat = 'openapi' | 'asyncapi' | 'openrpc' | 'json-schema';

/** One contract file and the spec statement its examples must honour. */
export interface ContractFile {
  /** Id segment: the check is `specs.<key>.examples_validate`. */
  key: string;
  /** File name inside specs/. */
  file: string;
  /** Its format (from the file name's suffix). */
  format: ContractFormat;
  /** The spec quote (or decision) describing what the contract's bodies are. */
  source: CheckSource;
}

/** The format of a contract file, named by its suffix: `.openapi.yaml`, `.asyncapi.yaml`, `.openrpc.json`, `.schema.json`. */
function formatOf(file: string): ContractFormat {
  const suffix = /\.(openapi|asyncapi|openrpc|schema)\.(?:yaml|json)$/.exec(file)?.[1];
  if (!suffix) throw new Error(`${file}: no contract format suffix`);
  return suffix === 'schema' ? 'json-schema' : (suffix as ContractFormat);
}

/** The seven contracts (DESIGN "Layout"), each with the statement that fixes its bodies. */
const CONTRACTS: readonly Omit<ContractFile, 'format'>[] = [
  {
    key: 'institutional',
    file: 'institutional.openapi.yaml',
    source: { quote: 'All bodies are JSON. Institutional REST paths are relative to {base_url}/wallet/api/v1' },
  },
  {
    key: 'explorer',
    file: 'explorer.openapi.yaml',
    source: { quote: 'All endpoints are GET under {base_url}/api and return JSON.' },
  },
  { key: 'wallet_session', file: 'wallet.openapi.yaml', source: { quote: 'Base {wallet_api_url}. Bodies are JSON.' } },
  // The administrator API is an extension the spec does not describe (D-048).
  { key: 'admin', file: 'admin.openapi.yaml', source: { decision: 'D-048' } },
  {
    key: 'webhooks',
    file: 'webhooks.asyncapi.yaml',
    source: { quote: 'The body is the Payment event payload (see Resources and their fields).' },
  },
  {
    key: 'chain',
    file: 'chain.openrpc.json',
    source: { quote: 'a JSON-RPC 2.0 body with fields jsonrpc (string), method (string), params (array), id' },
  },
  {
    key: 'evidence',
    file: 'evidence.schema.json',
    source: { quote: 'The evidence document is described by a JSON Schema (draft 2020-12)' },
  },
];

/** The seven contracts with their formats. */
export const CONTRACT_FILES: readonly ContractFile[] = CONTRACTS.map((c) => ({ ...c, format: formatOf(c.file) }));

const FORMAT_NAMES: Record<ContractFormat, string> = {
  openapi: 'OpenAPI 3.1',
  asyncapi: 'AsyncAPI 3.0',
  openrpc: 'OpenRPC 1.x',
  'json-schema': 'JSON Schema 2020-12',
};

/** One `specs.<key>.examples_validate` check per contract file. */
export function specExampleChecks(files: readonly ContractFile[] = CONTRACT_FILES): Check[] {
  const defineCheck = checkDefiner({ surface: 'specs', needs: ['specs'] });
  return files.map((contract) =>
    defineCheck({
      id: `specs.${contract.key}.examples_validate`,
      title: `every example in ${contract.file} validates against its schema`,
      source: contract.source,
      run: async (ctx) => checkContractExamples(contract, ctx.specsDir),
    }),
  );
}

/** Loads one contract and validates all of its examples. A missing file is a failure, not a skip. */
export async function checkContractExamples(contract: ContractFile, specsDir: URL): Promise<CheckVerdict> {
  const loaded = await loadContract(contract, specsDir);
  if ('problem' in loaded) return { status: 'failed', reason: loaded.problem };
  const doc = loaded.doc;
  const versionProblem = checkVersion(contract.format, doc);
  if (versionProblem) return { status: 'failed', reason: `specs/${contract.file}: ${versionProblem}` };

  let count: number;
  let errors: string[];
  const warnings: string[] = [];
  if (contract.format === 'json-schema') {
    ({ count, errors } = checkEvidenceExamples(doc));
  } else {
    const cases = collect(contract.format, doc);
    const dialect: Dialect = contract.format === 'openapi' ? '2020-12' : 'draft-07';
    const validator = new DocumentValidator(doc, dialect, contract.file);
    count = cases.length;
    errors = cases.flatMap((c) => validator.validate(c));
    warnings.push(...new Set(validator.warnings));
  }
  if (errors.length > 0) {
    const shown = errors.slice(0, 3).join('; ');
    return {
      status: 'failed',
      reason: `specs/${contract.file}: ${errors.length} example error(s): ${shown}${errors.length > 3 ? '; ...' : ''}`,
      expected: `every example validates against its schema (${count} found)`,
      actual: errors,
    };
  }
  // Zero examples is not a pass: the mocks and checks need one per operation, message and method.
  if (count === 0) return { status: 'failed', reason: `specs/${contract.file}: no examples found` };
  const note = warnings.length > 0 ? `; ajv warnings: ${warnings.join('; ')}` : '';
  return { status: 'passed', reason: `${count} example(s) validate${note}` };
}

function collect(format: Exclude<ContractFormat, 'json-schema'>, doc: Record<string, unknown>): ExampleCase[] {
  if (format === 'openapi') return collectOpenApiExamples(doc);
  if (format === 'asyncapi') return collectAsyncApiExamples(doc);
  return collectOpenRpcExamples(doc);
}

/** Reads and parses a contract (YAML or JSON by extension). */
async function loadContract(
  contract: ContractFile,
  specsDir: URL,
): Promise<{ doc: Record<string, unknown> } | { problem: string }> {
  const url = new URL(contract.file, specsDir);
  let text: string;
  try {
    text = await readFile(url, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'is missing' : `cannot be read (${code ?? (err as Error).message})`;
    return { problem: `specs/${contract.file} ${why} (looked at ${fileURLToPath(url)})` };
  }
  let doc: unknown;
  try {
    doc = contract.file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    return { problem: `specs/${contract.file} does not parse: ${(err as Error).message.split('\n')[0]}` };
  }
  if (!isObject(doc)) return { problem: `specs/${contract.file} is not an object at the top level` };
  return { doc };
}

/** Refuses a document of another format or major version, whose examples would be read wrongly. */
function checkVersion(format: ContractFormat, doc: Record<string, unknown>): string | undefined {
  const field = { openapi: 'openapi', asyncapi: 'asyncapi', openrpc: 'openrpc', 'json-schema': '$schema' }[format];
  const value = doc[field];
  const ok =
    format === 'openapi'
      ? typeof value === 'string' && value.startsWith('3.1.')
      : format === 'asyncapi'
        ? typeof value === 'string' && value.startsWith('3.')
        : format === 'openrpc'
          ? typeof value === 'string' && value.startsWith('1.')
          : true; // the evidence check reports a wrong $schema itself
  return ok ? undefined : `expected ${FORMAT_NAMES[format]} (${field}), got ${JSON.stringify(value)}`;
}
