/**
 * OpenRPC (C) → `generated/chain/`: parameter and result types per method (json-schema-to-typescript,
 * DESIGN.md: "@open-rpc/generator's output is dated"), a typed JSON-RPC client, and the document
 * itself for runtime validators.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compileDefinitions } from './json-schema-types.ts';
import { generatedHeader, type OutputRoot } from './paths.ts';
import { deref, loadSpec, pascalCase, type SpecDocument } from './spec-loader.ts';

const SPEC = 'chain.openrpc.json';

type ContentDescriptor = { name: string; schema: unknown; required?: boolean; summary?: string; description?: string };
type Method = { name: string; summary?: string; params: unknown[]; result?: unknown; deprecated?: boolean };

/** Names the TypeScript type for a descriptor: the component it references, or a new definition. */
function typeFor(schema: unknown, fallbackName: string, defs: Record<string, unknown>): string {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (ref?.startsWith('#/components/schemas/')) return ref.slice('#/components/schemas/'.length);
  defs[fallbackName] = schema ?? {};
  return fallbackName;
}

function methodEntries(doc: SpecDocument, defs: Record<string, unknown>): string[] {
  const methods = (doc.methods as Method[]).map((m) => deref<Method>(doc, m));
  return methods
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((method) => {
      const base = pascalCase(method.name);
      const params = method.params.map((p) => {
        const descriptor = deref<ContentDescriptor>(doc, p);
        const type = typeFor(descriptor.schema, `${base}Param${pascalCase(descriptor.name)}`, defs);
        const optional = descriptor.required === false || descriptor.required === undefined ? '?' : '';
        return `${descriptor.name}${optional}: T.${type}`;
      });
      const result = method.result ? deref<ContentDescriptor>(doc, method.result) : undefined;
      const resultType = result ? `T.${typeFor(result.schema, `${base}Result`, defs)}` : 'null';
      const doc1 = (method.summary ?? method.name).replace(/\*\//g, '*\\/');
      return `  /** ${doc1} */\n  ${method.name}: { params: [${params.join(', ')}]; result: ${resultType} };`;
    });
}

function renderClient(entries: string[], errors: Record<string, { code: number; message: string }>): string {
  const errorLines = Object.entries(errors)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, e]) => `  ${name}: ${e.code},`);
  return [
    ...generatedHeader(SPEC),
    '',
    "import type * as T from './types.gen.ts';",
    '',
    '/** Every method of the chain JSON-RPC contract: its positional parameters and its result. */',
    'export interface ChainRpcMethods {',
    ...entries,
    '}',
    '',
    '/** A method name of the chain JSON-RPC contract. */',
    'export type ChainRpcMethod = keyof ChainRpcMethods;',
    '',
    '/** The JSON-RPC error codes the contract documents, by name. */',
    'export const chainRpcErrorCodes = {',
    ...errorLines,
    '} as const;',
    '',
    '/** A JSON-RPC error object returned by the server. */',
    'export class ChainRpcError extends Error {',
    '  /** The JSON-RPC error code. */',
    '  readonly code: number;',
    "  /** The error object's `data`, when the server sent one. */",
    '  readonly data?: unknown;',
    "  /** Creates the error from the response's error object. */",
    '  constructor(code: number, message: string, data?: unknown) {',
    '    super(message);',
    '    this.code = code;',
    '    this.data = data;',
    "    this.name = 'ChainRpcError';",
    '  }',
    '}',
    '',
    '/** Options of {@link createChainRpcClient}. */',
    'export type ChainRpcClientOptions = { url: string; fetch?: typeof fetch; headers?: Record<string, string> };',
    '',
    '/** A typed JSON-RPC 2.0 client over HTTP POST for the chain contract. */',
    'export function createChainRpcClient(options: ChainRpcClientOptions) {',
    '  let nextId = 1;',
    '  return {',
    '    /** Calls `method` with its positional parameters and returns its result, or throws ChainRpcError. */',
    "    async call<M extends ChainRpcMethod>(method: M, ...params: ChainRpcMethods[M]['params']): Promise<ChainRpcMethods[M]['result']> {",
    '      // Resolved per call, so a fetch patched later (tests, instrumentation) is honoured.',
    '      const response = await (options.fetch ?? globalThis.fetch)(options.url, {',
    "        method: 'POST',",
    "        headers: { 'content-type': 'application/json', ...options.headers },",
    "        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),",
    '      });',
    '      const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };',
    '      if (body.error) throw new ChainRpcError(body.error.code, body.error.message, body.error.data);',
    "      return body.result as ChainRpcMethods[M]['result'];",
    '    },',
    '  };',
    '}',
    '',
  ].join('\n');
}

/** Writes `generated/chain/types.gen.ts`, `client.gen.ts` and `document.gen.ts`. */
export async function generateOpenRpc({ generatedDir }: OutputRoot): Promise<void> {
  const doc = loadSpec(SPEC);
  const components = (doc.components ?? {}) as { schemas?: Record<string, unknown>; errors?: Record<string, unknown> };
  const defs: Record<string, unknown> = { ...(components.schemas ?? {}) };
  const entries = methodEntries(doc, defs);
  const errors: Record<string, { code: number; message: string }> = {};
  for (const [name, error] of Object.entries(components.errors ?? {})) errors[name] = deref(doc, error);
  const out = path.join(generatedDir, 'chain');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'types.gen.ts'), await compileDefinitions(defs, generatedHeader(SPEC)));
  writeFileSync(path.join(out, 'client.gen.ts'), renderClient(entries, errors));
  writeFileSync(
    path.join(out, 'document.gen.ts'),
    [
      ...generatedHeader(SPEC),
      '',
      '/** The chain OpenRPC document, for runtime validators (e.g. @open-rpc/schema-utils-js MethodCallValidator). */',
      `export const chainOpenRpcDocument = ${JSON.stringify(doc, null, 2)};`,
      '',
    ].join('\n'),
  );
}
