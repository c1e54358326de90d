// Flattens JSON Schemas inside a contract ($ref, allOf, oneOf, anyOf) into the properties, required
// names and JSON types the coverage tests compare with the interface specification.
import { deref, type SpecDocument } from '../../scripts/generate/spec-loader.ts';

type Schema = Record<string, unknown>;

/** The JSON types a schema admits (following $ref and combinators; const and enum count by value). */
export function typesOf(doc: SpecDocument, node: unknown): Set<string> {
  const schema = deref<Schema>(doc, node) ?? {};
  const types = new Set<string>();
  const add = (t: unknown) => {
    for (const x of [t].flat()) types.add(String(x));
  };
  if (schema.type) add(schema.type);
  if ('const' in schema) add(jsonTypeOfValue(schema.const));
  if (Array.isArray(schema.enum)) for (const v of schema.enum) add(jsonTypeOfValue(v));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    for (const sub of (schema[key] as unknown[] | undefined) ?? []) {
      for (const t of typesOf(doc, sub)) types.add(t);
    }
  }
  if (types.has('integer')) types.add('number');
  return types;
}

function jsonTypeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The merged properties and required names of an object schema (allOf parts merged). */
export function objectShape(
  doc: SpecDocument,
  node: unknown,
): { properties: Record<string, unknown>; required: Set<string> } {
  const schema = deref<Schema>(doc, node) ?? {};
  const properties: Record<string, unknown> = { ...((schema.properties as Record<string, unknown>) ?? {}) };
  const required = new Set<string>((schema.required as string[]) ?? []);
  for (const sub of (schema.allOf as unknown[] | undefined) ?? []) {
    const part = objectShape(doc, sub);
    Object.assign(properties, part.properties);
    for (const r of part.required) required.add(r);
  }
  return { properties, required };
}

/** A property's own schema after following $ref. */
export function propertySchema(doc: SpecDocument, node: unknown, name: string): Schema {
  return deref<Schema>(doc, objectShape(doc, node).properties[name]);
}
