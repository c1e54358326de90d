/**
 * MSW handler sets that answer every operation with the example its contract gives, built on the
 * hey-api MSW handlers (which answer 501 until a response is picked, DESIGN.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deref, loadSpec, type SpecDocument } from './spec-loader.ts';
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
  const picks: string[] = [];
  const resolvers: string[] = [];
  for (const pathItem of Object.values((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const id = String(operation.operationId);
      const example = exampleResponse(doc, operation);
      if (!example) continue;
      if (example.body === undefined) {
        // No body (e.g. a 302 redirect): answer with the status and the example headers.
        resolvers.push(
          `    ${id}: () => new HttpResponse(null, ${JSON.stringify({ status: example.status, headers: example.headers ?? {} })}),`,
        );
      } else {
        picks.push(`  ${id}: { status: ${example.status}, body: ${JSON.stringify(example.body)} },`);
      }
    }
  }
  return [
    ...generatedHeader(surface.spec),
    '',
    resolvers.length ? `import { HttpResponse, type HttpHandler } from 'msw';` : `import type { HttpHandler } from 'msw';`,
    `import { createMswHandlers, type CreateMswHandlersResult, type RequestHandlerOptions } from '../generated/${surface.name}/msw.gen';`,
    '',
    `type Picks = NonNullable<NonNullable<Parameters<CreateMswHandlersResult['all']>[0]>['pick']>;`,
    '',
    '/** Each operation\'s example response from the contract (its lowest 2xx status, `default` example). */',
    `export const exampleResponses: Picks = {`,
    ...picks,
    `};`,
    '',
    '/** MSW handlers that answer every operation of the contract with its example response. */',
    `export function exampleHandlers(options: RequestHandlerOptions = {}): ReadonlyArray<HttpHandler> {`,
    `  return createMswHandlers(options).all({`,
    `    pick: {`,
    `      ...exampleResponses,`,
    ...resolvers,
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
