/**
 * AsyncAPI (B) → `generated/webhooks/`: payload and header types per message and the schemas for
 * validators. DESIGN.md: walk `document.operations()`, then each operation's `messages()`, read each
 * message's `payload()`/`headers()` `.json()`, strip the `x-parser-*` keys, and feed json-schema-to-typescript.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { compileDefinitions } from './json-schema-types.ts';
import { generatedHeader, type OutputRoot } from './paths.ts';
import { pascalCase } from './spec-loader.ts';
import { SPECS_DIR } from '../../src/paths.ts';

const SPEC = 'webhooks.asyncapi.yaml';
const ANONYMOUS = /^<anonymous-schema/;

/** Parses the AsyncAPI contract; throws with the parser's diagnostics if it has errors. */
export async function parseWebhooksContract() {
  const text = readFileSync(path.join(SPECS_DIR, SPEC), 'utf8');
  const { document, diagnostics } = await new Parser().parse(text);
  const errors = diagnostics.filter((d) => d.severity === 0);
  if (!document || errors.length) {
    throw new Error(
      `specs/${SPEC} does not parse:\n${errors.map((d) => `${d.path.join('.')}: ${d.message}`).join('\n')}`,
    );
  }
  return document;
}

/**
 * Undoes the parser's dereferencing: a sub-schema the parser marked with a named
 * `x-parser-schema-id` (a component) becomes a `$ref` to a shared definition again.
 */
function extractNamed(node: unknown, defs: Record<string, unknown>, isRoot = false): unknown {
  if (Array.isArray(node)) return node.map((n) => extractNamed(n, defs));
  if (node === null || typeof node !== 'object') return node;
  const schemaId = (node as Record<string, unknown>)['x-parser-schema-id'];
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith('x-parser-')) copy[key] = extractNamed(value, defs);
  }
  if (!isRoot && typeof schemaId === 'string' && !ANONYMOUS.test(schemaId)) {
    defs[schemaId] = copy;
    return { $ref: `#/$defs/${schemaId}` };
  }
  return copy;
}

/**
 * Merges an `allOf` of object schemas into one object schema, so the generated type states every
 * required field (json-schema-to-typescript would otherwise emit an intersection whose parts do not
 * carry each other's `required`).
 */
function flattenAllOf(schema: unknown, defs: Record<string, unknown>): unknown {
  const node = schema as { allOf?: unknown[]; properties?: object; required?: string[] } & Record<string, unknown>;
  if (!node?.allOf) return schema;
  const { allOf, ...rest } = node;
  const merged: Record<string, unknown> & { properties: Record<string, unknown>; required: string[] } = {
    ...rest,
    type: 'object',
    properties: { ...(rest.properties as object) },
    required: [...(rest.required ?? [])],
  };
  for (const part of allOf) {
    const ref = (part as { $ref?: string }).$ref;
    const resolved = (ref ? defs[ref.replace('#/$defs/', '')] : part) as typeof node;
    const flat = flattenAllOf(resolved, defs) as typeof node;
    Object.assign(merged.properties, flat.properties);
    merged.required.push(...(flat.required ?? []));
    if (flat.additionalProperties === false) merged.additionalProperties = false;
  }
  merged.required = [...new Set(merged.required)];
  return merged;
}

/** Writes `generated/webhooks/types.gen.ts` (payload and header types) and `schemas.gen.ts`. */
export async function generateAsyncApi({ generatedDir }: OutputRoot): Promise<void> {
  const document = await parseWebhooksContract();
  const defs: Record<string, unknown> = {};
  const messages: Record<string, { event: string | undefined; payload: unknown; headers: unknown }> = {};
  for (const operation of document.operations().all()) {
    for (const message of operation.messages().all()) {
      const name = pascalCase(message.id());
      if (messages[name]) continue;
      const payload = extractNamed(message.payload()?.json(), defs, true);
      const headers = extractNamed(message.headers()?.json(), defs, true);
      defs[`${name}Payload`] = flattenAllOf(payload, defs);
      defs[`${name}Headers`] = headers;
      const eventConst = (headers as { properties?: Record<string, { const?: string }> })?.properties?.['X-SVC-Event']
        ?.const;
      messages[name] = { event: eventConst, payload, headers };
    }
  }
  const out = path.join(generatedDir, 'webhooks');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'types.gen.ts'), await compileDefinitions(defs, generatedHeader(SPEC)));
  const names = Object.keys(messages).sort();
  const byEvent = names.filter((n) => messages[n]!.event).map((n) => `  '${messages[n]!.event}': '${n}',`);
  writeFileSync(
    path.join(out, 'schemas.gen.ts'),
    [
      ...generatedHeader(SPEC),
      '',
      '/** Shared schema definitions the message schemas refer to (`#/$defs/...`). */',
      `export const webhookSchemaDefs = ${JSON.stringify(defs, null, 2)} as const;`,
      '',
      '/** The message name for each event type (`X-SVC-Event`). */',
      'export const webhookMessageByEvent = {',
      ...byEvent,
      '} as const;',
      '',
    ].join('\n'),
  );
}
