import { AsyncLocalStorage } from 'node:async_hooks';
/**
 * JSON Schema → fast-check arbitrary of valid values. Supported keywords: type (also as a list), enum,
 * const, format (through the registry of formats.ts), pattern, minLength/maxLength, minimum/maximum and
 * their exclusive forms, multipleOf, items/minItems/maxItems/uniqueItems, properties/required/
 * additionalProperties/minProperties, allOf (merged), anyOf/oneOf (a branch), not (filtered out).
 */
import fc from 'fast-check';
import type { Schema } from './schema.ts';
import { FORMATS } from './formats.ts';
import { notAfterNow, pastDateTimes } from './keywords.ts';

/** Options of {@link arbitraryOf}. */
export interface ArbitraryOptions {
  /** Maximum array length and number of optional properties drawn (default 3). */
  maxItems?: number;
}

/** The types a schema allows (all JSON types when it states none). */
export function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.required) return ['object'];
  if (schema.items) return ['array'];
  if (schema.pattern || schema.format || schema.minLength !== undefined) return ['string'];
  return ['string', 'integer', 'boolean', 'object'];
}

/** Merges the branches of `allOf` into one schema (properties and required combined). */
export function mergeAllOf(schema: Schema): Schema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  let out: Schema = { ...rest };
  for (const part of allOf as Schema[]) {
    const p = mergeAllOf(part);
    out = {
      ...p,
      ...out,
      properties: { ...(p.properties as object), ...(out.properties as object) },
      required: [...new Set([...((p.required as string[]) ?? []), ...((out.required as string[]) ?? [])])],
    };
  }
  return out;
}

/** The arbitrary of values valid against `schema`. */
export function arbitraryOf(input: Schema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const schema = mergeAllOf(input);
  let arb = baseArbitrary(schema, options);
  if (schema.not) {
    const not = schema.not as Schema;
    arb = arb.filter((v) => !matchesSimply(not, v));
  }
  return arb;
}

/**
 * Values a contract field must take from the deployment under test rather than from its schema
 * (`x-deployment-value`, D-185): e.g. `platform-bic`, the platform's own BIC (D-049). Each run's own, carried
 * through everything it awaits, so two runs against two deployments at once draw each its own (D-232).
 */
const deploymentValues = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `fn` (an engine run) with the deployment's values of `x-deployment-value` fields. */
export function withDeploymentValues<T>(values: Readonly<Record<string, string>>, fn: () => Promise<T>): Promise<T> {
  return deploymentValues.run(values, fn);
}

/** The deployment's value for a field marked `x-deployment-value`, when the run knows it. */
export function deploymentValueOf(schema: Schema): string | undefined {
  const name = schema['x-deployment-value'];
  return typeof name === 'string' ? deploymentValues.getStore()?.[name] : undefined;
}

function baseArbitrary(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const bound = deploymentValueOf(schema);
  if (bound !== undefined) return fc.constant(bound);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(branches)) {
    const { oneOf: _o, anyOf: _a, ...shared } = schema;
    return fc.oneof(...branches.map((b) => arbitraryOf({ ...shared, ...b }, options)));
  }
  return fc.oneof(...typesOf(schema).map((type) => typed(type, schema, options)));
}

function typed(type: string, schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integers(schema);
    case 'number':
      return numbers(schema);
    case 'string':
      return strings(schema);
    case 'array':
      return arrays(schema, options);
    default:
      return objects(schema, options);
  }
}

function bounds(schema: Schema, step: number): { min: number; max: number } {
  let min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  let max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000_000;
  if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min, schema.exclusiveMinimum + step);
  if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max, schema.exclusiveMaximum - step);
  return { min, max };
}

function integers(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = bounds(schema, 1);
  const lo = Math.ceil(min);
  const hi = Math.floor(max);
  const m = typeof schema.multipleOf === 'number' && Number.isInteger(schema.multipleOf) ? schema.multipleOf : 1;
  return fc.integer({ min: Math.ceil(lo / m), max: Math.floor(hi / m) }).map((k) => k * m);
}

function numbers(schema: Schema): fc.Arbitrary<number> {
  // Decimals of the contracts are multiples of 0.01 (D-002): draw whole hundredths.
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : 0.01;
  const { min, max } = bounds(schema, step);
  const lo = Math.ceil(min / step);
  const hi = Math.floor(max / step);
  // ajv's multipleOf (precision 1e-9, as the server's) refuses some large decimals such as 163018778.36;
  // those are left out so every drawn value is valid by the oracle.
  const decimals = (String(step).split('.')[1] ?? '').length;
  return fc
    .integer({ min: lo, max: hi })
    .map((k) => Number((k * step).toFixed(decimals)))
    .filter((x) => Math.abs(Math.round(x / step) - x / step) <= 1e-9);
}

function strings(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const explicitMax = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const inLength = (s: string) => [...s].length >= minLength && [...s].length <= explicitMax;
  const format = typeof schema.format === 'string' ? FORMATS.get(schema.format) : undefined;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  // D-198: a date-time that must not lie in the future is drawn from the past.
  const valid = format && notAfterNow(schema) ? pastDateTimes() : format?.valid;
  if (valid) return valid.filter((s) => inLength(s) && (!pattern || pattern.test(s)));
  if (pattern) {
    // `^[class]+$` with a length (e.g. a 6,618-character hex signature, D-167): characters of the class at the
    // lengths the schema allows; other patterns through fast-check's regex arbitrary.
    const simple = simpleClass(schema.pattern as string);
    if (simple) {
      const max = Math.min(explicitMax, Math.max(minLength, 24));
      const tail = simple.tail ? fc.stringMatching(new RegExp(`^(?:${simple.tail})$`, 'u')) : fc.constant('');
      return fc
        .tuple(tail, fc.integer({ min: Math.max(minLength, 1), max }))
        .chain(([t, length]) =>
          fc
            .string({
              unit: fc.constantFrom(...simple.chars),
              minLength: Math.max(1, length - t.length),
              maxLength: Math.max(1, length - t.length),
            })
            .map((b) => b + t),
        )
        .filter((v) => inLength(v) && pattern.test(v));
    }
    return fc.stringMatching(pattern, { size: minLength > 8 ? 'large' : 'small' }).filter(inLength);
  }
  const maxLength = Math.min(explicitMax, Math.max(minLength, 24));
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function arrays(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown[]> {
  const items = (schema.items as Schema | undefined) ?? { type: 'string' };
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const cap = Math.max(minLength, options.maxItems ?? 3);
  const maxLength = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, cap) : cap;
  const item = arbitraryOf(items, options);
  return schema.uniqueItems === true
    ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    : fc.array(item, { minLength, maxLength });
}

function objects(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) model[name] = arbitraryOf(sub, options);
  for (const name of required) model[name] ??= fc.string({ maxLength: 8 });
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  return fc
    .record(model, { requiredKeys: [...required] })
    .filter((o) => Object.keys(o).length >= minProperties) as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * The characters of a `^[class]+tail$` pattern (ranges and single characters; the tail a short regex such as
 * `={0,2}`), else undefined.
 */
export function simpleClass(pattern: string): { chars: string[]; tail: string } | undefined {
  const m = /^\^\[([^\]\\^]+)\]\+([^[\]()|]*)\$$/.exec(pattern);
  if (!m?.[1]) return undefined;
  const body = m[1];
  const chars: string[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i + 1] === '-' && i + 2 < body.length) {
      for (let c = body.charCodeAt(i); c <= body.charCodeAt(i + 2); c++) chars.push(String.fromCharCode(c));
      i += 2;
    } else chars.push(body[i] as string);
  }
  return { chars, tail: m[2] ?? '' };
}

/** A cheap check for `not` sub-schemas (const, enum, required, type), enough for the contracts' uses. */
function matchesSimply(schema: Schema, value: unknown): boolean {
  if ('const' in schema) return JSON.stringify(schema.const) === JSON.stringify(value);
  if (Array.isArray(schema.enum)) return schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value));
  if (Array.isArray(schema.required))
    return typeof value === 'object' && value !== null && schema.required.every((k) => k in value);
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => matchesSimply(s as Schema, value));
  return false;
}
