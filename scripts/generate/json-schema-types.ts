/**
 * JSON Schema → TypeScript through json-schema-to-typescript 16 (DESIGN.md), shared by the AsyncAPI,
 * OpenRPC and evidence generators. Definitions live under `$defs` and each is named by its key.
 */
import { compile, type JSONSchema } from 'json-schema-to-typescript';

/** Deep-copies a schema, dropping `x-*` extension keys and rewriting `#/components/schemas/` refs to `#/$defs/`. */
export function toPlainSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toPlainSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-')) continue;
    if (key === 'examples' || key === 'example') continue; // examples are data, not types
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace('#/components/schemas/', '#/$defs/');
    } else {
      out[key] = toPlainSchema(value);
    }
  }
  return out;
}

/**
 * Compiles a set of named definitions into one TypeScript module. Every definition becomes an exported
 * type named by its key (titles are ignored so names stay stable when descriptions change).
 */
export async function compileDefinitions(defs: Record<string, unknown>, banner: string[]): Promise<string> {
  const named: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(defs).sort(([a], [b]) => a.localeCompare(b))) {
    const plain = toPlainSchema(schema) as Record<string, unknown>;
    delete plain.title;
    named[name] = { ...plain, title: name };
  }
  const root = { $defs: named, title: '__Root', type: 'object', additionalProperties: false } as unknown as JSONSchema;
  const source = await compile(root, '__Root', {
    bannerComment: banner.join('\n'),
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    additionalProperties: true,
    strictIndexSignatures: true,
    unknownAny: true,
    format: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  // The synthetic root only exists to carry $defs; drop its empty interface.
  return source.replace(/export interface __Root \{\}\n\n?/, '');
}
