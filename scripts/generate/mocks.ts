/**
 * MSW handler sets that answer every operation with the example its contract gives, built on the
 * hey-api MSW handlers (which answer 501 until a response is picked, DESIGN.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deref, loadSpec, pascalCase, type SpecDocument } from './spec-loader.ts';
import { generatedHeader, openApiSurfaces, type OutputRoot } from './paths.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type ExampleResponse = { status: number; body?: unknown; headers?: Record<string, string> };

/** Picks an operation's example response: the lowest documented 2xx or 3xx status, its `default` example. */
export function exampleResponse(doc: SpecDocument, operation: Record<string, unknown>): ExampleResponse | undefined {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  const status = Object.keys(responses)
    .filter((code) => /^[23]\d\d$/.test(code))
    .sort()[0];
  if (!status) return undefined;
  const response = deref(doc, responses[status]);
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, unknown>)) {
    const resolved = deref(doc, header);
    const example = resolved.example ?? deref(doc, resolved.schema).example;
    if (typeof example === 'string') headers[name] = example;
  }
  const media = (response.content as Record<string, Record<string, unknown>> | undefined)?.['application/json'];
  const examples = (media?.examples ?? {}) as Record<string, unknown>;
  const named = examples.default ?? Object.values(examples)[0];
  const body = media?.example ?? (named ? deref(doc, named).value : undefined);
  if (media && body === undefined) {
    throw new Error(`operation "${String(operation.operationId)}" has no example for its ${status} response`);
  }
  return { status: Number(status), body, ...(Object.keys(headers).length ? { headers } : {}) };
}

function renderSurface(surface: (typeof openApiSurfaces)[number]): string {
  const doc = loadSpec(surface.spec);
  const examples: string[] = [];
  const picks: string[] = [];
  const typeNames: string[] = [];
  for (const pathItem of Object.values((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const id = String(operation.operationId);
      const example = exampleResponse(doc, operation);
      if (!example) continue;
      const init = JSON.stringify({ status: example.status, headers: example.headers ?? {} });
      if (example.body === undefined) {
        // No body (e.g. a 302 redirect): answer with the status and the example headers.
        picks.push(`      ${id}: () => new HttpResponse(null, ${init}),`);
        continue;
      }
      const typeName = `Handle${pascalCase(id)}Response`;
      typeNames.push(typeName);
      examples.push(
        `  ${id}: { status: ${example.status}, body: ${JSON.stringify(example.body)} } satisfies ${typeName},`,
      );
      picks.push(
        example.headers
          ? `      ${id}: () => HttpResponse.json(exampleResponses.${id}.body, ${init}),`
          : `      ${id}: exampleResponses.${id},`,
      );
    }
  }
  const needsHttpResponse = picks.some((p) => p.includes('HttpResponse'));
  return [
    ...generatedHeader(surface.spec),
    '',
    needsHttpResponse
      ? `import { HttpResponse, type HttpHandler } from 'msw';`
      : `import type { HttpHandler } from 'msw';`,
    `import {`,
    `  createMswHandlers,`,
    ...typeNames.sort().map((t) => `  type ${t},`),
    `  type RequestHandlerOptions,`,
    `} from '../generated/${surface.name}/msw.gen';`,
    '',
    "/** Each operation's example response from the contract (its lowest 2xx or 3xx status, `default` example). */",
    `export const exampleResponses = {`,
    ...examples,
    `};`,
    '',
    '/** MSW handlers that answer every operation of the contract with its example response and headers. */',
    `export function exampleHandlers(options: RequestHandlerOptions = {}): ReadonlyArray<HttpHandler> {`,
    `  return createMswHandlers(options).all({`,
    `    pick: {`,
    ...picks,
    `    },`,
    `  });`,
    `}`,
    '',
  ].join('\n');
}

/** Writes `mocks/<surface>.gen.ts` for every OpenAPI contract. */
export function generateOpenApiMocks({ mocksDir }: OutputRoot): void {
  mkdirSync(mocksDir, { recursive: true });
  for (const surface of openApiSurfaces) {
    writeFileSync(path.join(mocksDir, `${surface.name}.gen.ts`), renderSurface(surface));
  }
}
