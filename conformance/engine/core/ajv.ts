/**
 * The engine's JSON Schema validators (2020-12, the OpenAPI 3.1 dialect): compiled once per schema object
 * and cached, so checking a response costs one function call. Parameters are validated as the server sees
 * them: strings coerced to the schema's type (a query `limit=5` is the integer 5).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Schema } from './schema.ts';
import { registerAjvFormats } from './formats.ts';
import { registerAjvKeywords } from './keywords.ts';

function newAjv(coerceTypes: boolean): Ajv2020 {
  // strict: false: OpenAPI schemas carry `example`, `x-*` and `discriminator`, which ajv does not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9, coerceTypes, logger: false });
  addFormats(ajv);
  registerAjvFormats(ajv);
  registerAjvKeywords(ajv);
  return ajv;
}

const plain = newAjv(false);
const coercing = newAjv(true);
const compiled = new WeakMap<Schema, ValidateFunction>();
const compiledParams = new WeakMap<Schema, ValidateFunction>();

/** The compiled validator of `schema`. */
export function validatorOf(schema: Schema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = plain.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** The ajv errors of `value` against `schema` (empty when valid). */
export function schemaErrors(schema: Schema, value: unknown): ErrorObject[] {
  const fn = validatorOf(schema);
  return fn(value) ? [] : [...(fn.errors ?? [])];
}

/** The errors of a parameter's wire string (undefined: absent) against its schema, types coerced. */
export function parameterErrors(schema: Schema, value: string | undefined): ErrorObject[] {
  let fn = compiledParams.get(schema);
  if (!fn) {
    fn = coercing.compile({ type: 'object', properties: { v: schema } });
    compiledParams.set(schema, fn);
  }
  return fn(value === undefined ? {} : { v: value }) ? [] : [...(fn.errors ?? [])];
}

/** One ajv error as text: where, and what failed. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(value)'} ${e.message ?? e.keyword}`)
    .join('; ');
}
