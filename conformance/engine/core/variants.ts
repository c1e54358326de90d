/**
 * Boundary and negative variants of a valid value, one per schema keyword: minimum/maximum (and exclusive)
 * at and past the bound, minLength/maxLength at and past the bound, a pattern's non-matching string, each
 * enum value and one outside, a format's non-matching string, each `required` property missing, an extra
 * property where `additionalProperties: false`, a wrong type and null where not nullable. ajv is the
 * oracle: a positive variant is kept only if it validates, a negative one only if ajv refuses it for the
 * keyword it names.
 */
import type { ErrorObject } from 'ajv';
import { deploymentValueOf, mergeAllOf, typesOf } from './arbitrary.ts';
import type { Schema } from './schema.ts';
import { FORMATS } from './formats.ts';
import { BLOCK_RANGE_KEYWORD } from '../../../src/server/chain/keywords.ts';
import { A_FUTURE_TIME, NOT_AFTER_NOW, notAfterNow } from './keywords.ts';

/** One variant of a value. */
export interface Variant {
  /** True for a value the schema accepts (a boundary), false for one it refuses. */
  valid: boolean;
  /** The schema keyword the variant exercises (`minimum`, `required`, `type`...). */
  keyword: string;
  /** Where in the value, as a JSON pointer ('' for the value itself). */
  at: string;
  /** Human description, e.g. `/amount below minimum 0.01`. */
  reason: string;
  /** The whole value with the variant applied. */
  value: unknown;
}

type Local = Omit<Variant, 'at' | 'value'> & { replacement: unknown | typeof REMOVE };
const REMOVE = Symbol('remove');

/** Every variant of `base` (a valid value of `schema`), nested properties and the first array item included. */
export function variantsOf(schema: Schema, base: unknown): Variant[] {
  const out: Variant[] = [];
  walk(mergeAllOf(schema), base, [], (path, local) => {
    out.push({
      valid: local.valid,
      keyword: local.keyword,
      at: pointer(path),
      reason: `${pointer(path) || '(value)'} ${local.reason}`,
      value: replaceAt(base, path, local.replacement),
    });
  });
  return out;
}

/** True when ajv's errors name `keyword` (a negative variant fails for the reason it claims). */
export function failsFor(errors: readonly ErrorObject[], keyword: string): boolean {
  return errors.some((e) => e.keyword === keyword || (keyword === 'type' && e.keyword === 'format'));
}

function walk(schema: Schema, value: unknown, path: string[], emit: (path: string[], local: Local) => void): void {
  // A field bound to the deployment (x-deployment-value, D-185) has one valid value: only its refusals vary.
  const bound = deploymentValueOf(schema) !== undefined;
  for (const local of localVariants(schema, value)) if (!(bound && local.valid)) emit(path, local);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const name of (schema.required as string[] | undefined) ?? [])
      if (name in obj)
        emit([...path, name], { valid: false, keyword: 'required', reason: 'missing (required)', replacement: REMOVE });
    if (schema.additionalProperties === false)
      emit([...path, 'unexpectedProperty'], {
        valid: false,
        keyword: 'additionalProperties',
        reason: 'added where additionalProperties is false',
        replacement: 'x',
      });
    for (const [name, sub] of Object.entries(properties))
      if (name in obj) walk(mergeAllOf(sub), obj[name], [...path, name], emit);
  } else if (Array.isArray(value) && value.length > 0 && schema.items) {
    walk(mergeAllOf(schema.items as Schema), value[0], [...path, '0'], emit);
  }
}

function localVariants(schema: Schema, value: unknown): Local[] {
  const out: Local[] = [];
  const types = typesOf(schema);
  const add = (valid: boolean, keyword: string, reason: string, replacement: unknown) =>
    out.push({ valid, keyword, reason, replacement });
  if (schema.type !== undefined) {
    const wrong = !types.includes('string') ? 'not-a-number' : types.includes('object') ? 7 : { unexpected: 'object' };
    add(false, 'type', `of the wrong type (${JSON.stringify(wrong)})`, wrong);
    if (!types.includes('null')) add(false, 'type', 'null where not nullable', null);
  }
  if (Array.isArray(schema.enum)) {
    for (const e of schema.enum) add(true, 'enum', `enum value ${JSON.stringify(e)}`, e);
    add(false, 'enum', 'outside the enum', typeof schema.enum[0] === 'number' ? 987654321 : 'not-in-enum');
  }
  const range = schema[BLOCK_RANGE_KEYWORD];
  if (Array.isArray(range) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // D-197: a numbered range whose first block is after its last one.
    const [from, to] = range as string[];
    const { blockHash: _hash, ...rest } = value as Record<string, unknown>;
    add(false, BLOCK_RANGE_KEYWORD, `"${from}" after "${to}"`, { ...rest, [from!]: '0x2', [to!]: '0x1' });
  }
  if ('const' in schema)
    add(false, 'const', 'other than the const', typeof schema.const === 'string' ? `${schema.const}x` : 'other');
  const step = types.includes('integer') ? 1 : typeof schema.multipleOf === 'number' ? schema.multipleOf : 0.01;
  const num = (x: number) => Number(x.toFixed(9));
  if (typeof schema.minimum === 'number') {
    add(true, 'minimum', `at minimum ${schema.minimum}`, schema.minimum);
    add(false, 'minimum', `below minimum ${schema.minimum}`, num(schema.minimum - step));
  }
  if (typeof schema.maximum === 'number') {
    add(true, 'maximum', `at maximum ${schema.maximum}`, schema.maximum);
    add(false, 'maximum', `above maximum ${schema.maximum}`, num(schema.maximum + step));
  }
  if (typeof schema.exclusiveMinimum === 'number') {
    add(
      true,
      'exclusiveMinimum',
      `just above exclusiveMinimum ${schema.exclusiveMinimum}`,
      num(schema.exclusiveMinimum + step),
    );
    add(false, 'exclusiveMinimum', `at exclusiveMinimum ${schema.exclusiveMinimum}`, schema.exclusiveMinimum);
  }
  if (typeof schema.exclusiveMaximum === 'number') {
    add(
      true,
      'exclusiveMaximum',
      `just below exclusiveMaximum ${schema.exclusiveMaximum}`,
      num(schema.exclusiveMaximum - step),
    );
    add(false, 'exclusiveMaximum', `at exclusiveMaximum ${schema.exclusiveMaximum}`, schema.exclusiveMaximum);
  }
  if (typeof value === 'string') {
    const pad = value.at(-1) ?? 'a';
    if (typeof schema.minLength === 'number') {
      add(true, 'minLength', `at minLength ${schema.minLength}`, resize(value, schema.minLength, pad));
      if (schema.minLength > 0)
        add(false, 'minLength', `shorter than minLength ${schema.minLength}`, value.slice(0, schema.minLength - 1));
    }
    if (typeof schema.maxLength === 'number') {
      add(true, 'maxLength', `at maxLength ${schema.maxLength}`, resize(value, schema.maxLength, pad));
      add(false, 'maxLength', `longer than maxLength ${schema.maxLength}`, resize(value, schema.maxLength + 1, pad));
    }
    if (typeof schema.pattern === 'string') {
      const re = new RegExp(schema.pattern, 'u');
      add(true, 'pattern', 'matching the pattern', value);
      const miss = [`${value}!`, `!${value}`, `${value.slice(0, -1)}!`, ' ', ''].find((s) => !re.test(s));
      if (miss !== undefined) add(false, 'pattern', `not matching the pattern ${schema.pattern}`, miss);
    }
    const format = typeof schema.format === 'string' ? FORMATS.get(schema.format) : undefined;
    if (format) for (const bad of format.invalid) add(false, 'format', `not a ${schema.format}`, bad);
    if (notAfterNow(schema)) add(false, NOT_AFTER_NOW, 'a time after now', A_FUTURE_TIME);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && schema.minItems > 0)
      add(false, 'minItems', `fewer than minItems ${schema.minItems}`, value.slice(0, schema.minItems - 1));
    if (typeof schema.maxItems === 'number' && value.length > 0)
      add(
        false,
        'maxItems',
        `more than maxItems ${schema.maxItems}`,
        Array.from({ length: schema.maxItems + 1 }, (_, i) => value[i % value.length]),
      );
  }
  return out;
}

/** `value` cut or padded with `pad` to `length` characters. */
function resize(value: string, length: number, pad: string): string {
  return value.length >= length ? value.slice(0, length) : value + pad.repeat(length - value.length);
}

function pointer(path: readonly string[]): string {
  return path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function replaceAt(base: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement === REMOVE ? undefined : replacement;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(base)) {
    const copy = [...base];
    copy[Number(head)] = replaceAt(copy[Number(head)], rest, replacement);
    return copy;
  }
  const copy = { ...(base as Record<string, unknown>) };
  const next = replaceAt(copy[head], rest, replacement);
  if (rest.length === 0 && replacement === REMOVE) delete copy[head];
  else copy[head] = next;
  return copy;
}
