/**
 * MSW mocks for the non-OpenAPI surfaces: the chain JSON-RPC (C) answering each method with its OpenRPC
 * example, and the site origin (F) serving the evidence schema's example document.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedHeader, type OutputRoot } from './paths.ts';
import { deref, loadSpec } from './spec-loader.ts';

type Pairing = { params: { value: unknown }[]; result?: { value: unknown } };
type Method = { name: string; examples?: unknown[] };

function renderChainMock(): string {
  const doc = loadSpec('chain.openrpc.json');
  const examples: Record<string, { params: unknown[]; result: unknown }[]> = {};
  for (const method of (doc.methods as Method[]).map((m) => deref<Method>(doc, m))) {
    examples[method.name] = (method.examples ?? [])
      .map((e) => deref<Pairing>(doc, e))
      .map((e) => ({
        params: e.params.map((p) => deref<{ value: unknown }>(doc, p).value),
        result: e.result ? deref<{ value: unknown }>(doc, e.result).value : null,
      }));
  }
  return [
    ...generatedHeader('chain.openrpc.json'),
    '',
    "import { http, HttpResponse, type HttpHandler, type JsonBodyType } from 'msw';",
    "import type { ChainRpcMethod } from '@svckit/sdk/chain';",
    '',
    "/** Each method's example pairings from the contract: positional params and the result. */",
    'export const chainRpcExamples: Record<ChainRpcMethod, { params: unknown[]; result: JsonBodyType }[]> = ' +
      `${JSON.stringify(examples, null, 2)};`,
    '',
    'type RpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };',
    '',
    "/** Answers one request: the example whose params match, else the method's first example, else -32601. */",
    'function answer(request: RpcRequest): JsonBodyType {',
    '  const id = request.id ?? null;',
    "  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {",
    "    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };",
    '  }',
    '  const pairings = chainRpcExamples[request.method as ChainRpcMethod];',
    "  if (!pairings?.length) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };",
    '  const params = JSON.stringify(request.params ?? []);',
    '  const match = pairings.find((p) => JSON.stringify(p.params) === params) ?? pairings[0]!;',
    "  return { jsonrpc: '2.0', id, result: match.result };",
    '}',
    '',
    '/** An MSW handler for POST {base_url}/rpc answering single and batch requests from the contract examples. */',
    "export function exampleRpcHandler(url = '*/rpc'): HttpHandler {",
    '  return http.post(url, async ({ request }) => {',
    '    let body: unknown;',
    '    try {',
    '      body = await request.json();',
    '    } catch {',
    "      return HttpResponse.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });",
    '    }',
    '    return HttpResponse.json(Array.isArray(body) ? body.map((r) => answer(r as RpcRequest)) : answer(body as RpcRequest));',
    '  });',
    '}',
    '',
  ].join('\n');
}

function renderEvidenceMock(): string {
  const schema = loadSpec('evidence.schema.json') as { examples?: unknown[] };
  const example = schema.examples?.[0];
  if (!example) throw new Error('specs/evidence.schema.json has no example document');
  return [
    ...generatedHeader('evidence.schema.json'),
    '',
    "import { http, HttpResponse, type HttpHandler } from 'msw';",
    "import type { PqcEvidenceDocument } from '@svckit/sdk/evidence';",
    '',
    "/** The evidence schema's example document. */",
    `export const exampleEvidence: PqcEvidenceDocument = ${JSON.stringify(example, null, 2)};`,
    '',
    '/** An MSW handler serving the example at {site_url}/.well-known/pqc-evidence.json. */',
    "export function exampleEvidenceHandler(siteUrl = '*'): HttpHandler {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this line is emitted TypeScript; the template literal belongs to the generated handler
    '  return http.get(`${siteUrl}/.well-known/pqc-evidence.json`, () => HttpResponse.json(exampleEvidence));',
    '}',
    '',
  ].join('\n');
}

/** Writes `mocks/chain.gen.ts` and `mocks/evidence.gen.ts`. */
export function generateOtherMocks({ mocksDir }: OutputRoot): void {
  writeFileSync(path.join(mocksDir, 'chain.gen.ts'), renderChainMock());
  writeFileSync(path.join(mocksDir, 'evidence.gen.ts'), renderEvidenceMock());
}
