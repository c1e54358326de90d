// Calls every operation of an OpenAPI contract through its generated SDK, with the contract's own
// request examples, against the generated MSW mocks, and compares each answer with the example response.
import { expect } from 'vitest';
import { deref, loadSpec } from '../../scripts/generate/spec-loader.ts';
import { exampleResponse } from '../../scripts/generate/mocks.ts';

type Operation = {
  operationId: string;
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; example?: unknown; schema?: { example?: unknown } };
type SdkFunction = (
  options: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The request options the contract's examples give for one operation. */
function requestOptions(doc: Record<string, unknown>, pathItem: Record<string, unknown>, operation: Operation) {
  const options: Record<string, Record<string, unknown>> = { path: {}, query: {}, headers: {} };
  const parameters = [...((pathItem.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])];
  for (const parameter of parameters.map((p) => deref<Parameter>(doc, p))) {
    const example = parameter.example ?? parameter.schema?.example;
    if (example === undefined) continue;
    options[parameter.in === 'header' ? 'headers' : parameter.in]![parameter.name] = example;
  }
  const body = deref<{ content?: Record<string, { examples?: Record<string, unknown>; example?: unknown }> }>(
    doc,
    operation.requestBody,
  );
  const media = body?.content?.['application/json'];
  if (media) {
    const named = media.examples?.default ?? Object.values(media.examples ?? {})[0];
    (options as Record<string, unknown>).body = media.example ?? deref<{ value: unknown }>(doc, named).value;
  }
  return options;
}

/** Runs every operation of `specFile` through `sdk` and checks status and body against the example. */
export async function sweepOperations(
  specFile: string,
  sdk: Record<string, unknown>,
  client: unknown,
): Promise<number> {
  const doc = loadSpec(specFile);
  let calls = 0;
  for (const pathItem of Object.values(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const operation = pathItem[method] as Operation | undefined;
      if (!operation) continue;
      const call = sdk[operation.operationId] as SdkFunction | undefined;
      expect(call, `the SDK exports ${operation.operationId}`).toBeTypeOf('function');
      const expected = exampleResponse(doc, operation as unknown as Record<string, unknown>)!;
      const { data, error, response } = await call!({
        client,
        redirect: 'manual',
        ...requestOptions(doc, pathItem, operation),
      });
      // The fetch client reports any non-2xx answer (a 302 redirect included) through `error`.
      if (expected.status < 300) expect(error, `${operation.operationId} answered an error`).toBeUndefined();
      expect(response.status, operation.operationId).toBe(expected.status);
      if (expected.body !== undefined) expect(data, operation.operationId).toEqual(expected.body);
      for (const [name, value] of Object.entries(expected.headers ?? {}))
        expect(response.headers.get(name)).toBe(value);
      calls++;
    }
  }
  return calls;
}
