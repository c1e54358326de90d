// The evidence document's JSON Schema (surface F). spec: "The evidence document is described by a
// JSON Schema (draft 2020-12)". Unlike the API contracts it is a plain JSON Schema, so it is
// compiled in ajv strict mode; its one extension keyword, x-decision, is registered.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { formatAjvError } from './validator.ts';

/** The dialect the evidence schema must declare. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** An ajv 2020 instance in strict mode that knows the x-decision annotation. */
export function strictEvidenceAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addKeyword('x-decision');
  addFormats(ajv);
  return ajv;
}

/** Compiles the schema strictly and validates each of its `examples`; returns count and error lines. */
export function checkEvidenceExamples(schema: Record<string, unknown>): { count: number; errors: string[] } {
  if (schema.$schema !== DRAFT_2020_12) {
    return { count: 0, errors: [`$schema expected ${DRAFT_2020_12}, got ${JSON.stringify(schema.$schema)}`] };
  }
  let validate: ValidateFunction;
  try {
    validate = strictEvidenceAjv().compile(schema);
  } catch (err) {
    return { count: 0, errors: [`the schema does not compile in ajv strict mode: ${(err as Error).message}`] };
  }
  const examples = Array.isArray(schema.examples) ? schema.examples : [];
  const errors: string[] = [];
  examples.forEach((example, i) => {
    if (!validate(example)) {
      for (const e of validate.errors ?? []) errors.push(`#/examples/${i}: ${formatAjvError(e)}`);
    }
  });
  return { count: examples.length, errors };
}
