/** The inputs of an OpenAPI operation: valid ones from its schemas, their one-fault variants, fuzz, and its examples. */
import fc from 'fast-check';
import { parameterErrors, schemaErrors } from '../core/ajv.ts';
import { arbitraryOf } from '../core/arbitrary.ts';
import { type CaseInput, wire } from '../core/cases.ts';
import { failsFor, variantsOf } from '../core/variants.ts';
import type { Operation, Parameter } from './contract.ts';

const key = (p: Parameter) => `${p.in}:${p.name}`;

/** The arbitrary of valid inputs of `op` (optional parameters sometimes left out). */
export function inputArbitrary(op: Operation): fc.Arbitrary<CaseInput> {
  const params: Record<string, fc.Arbitrary<string>> = {};
  const requiredKeys: string[] = [];
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    params[key(p)] = arbitraryOf(p.schema)
      .map(wire)
      .filter((s) => parameterErrors(p.schema, s).length === 0);
    if (p.required) requiredKeys.push(key(p));
  }
  const record = fc.record(params, { requiredKeys }) as fc.Arbitrary<Record<string, string>>;
  if (!op.body) return record.map((p) => ({ params: p }));
  const bodySchema = op.body.schema;
  const body = arbitraryOf(bodySchema).filter((b) => schemaErrors(bodySchema, b).length === 0);
  return fc.record({ params: record, body });
}

/** Variants of a valid input: each parameter's and the body's, judged by ajv (see variants.ts). */
export function inputVariants(
  op: Operation,
  base: CaseInput,
): { valid: boolean; reason: string; input: CaseInput; missingHeader?: boolean }[] {
  const out: { valid: boolean; reason: string; input: CaseInput; missingHeader?: boolean }[] = [];
  for (const p of op.parameters) {
    const k = key(p);
    if (p.in === 'cookie') continue;
    if (p.required && p.in !== 'path') {
      const params = { ...base.params, [k]: undefined };
      out.push({
        valid: false,
        reason: `${p.in} parameter ${p.name} missing (required)`,
        input: { ...base, params },
        missingHeader: p.in === 'header',
      });
    }
    const current = base.params[k];
    if (current === undefined) continue;
    for (const v of variantsOf(p.schema, parseWire(current, p))) {
      const s = wire(v.value);
      if (v.value === null || (p.in === 'path' && (s === '' || s.includes('/')))) continue;
      const errors = parameterErrors(p.schema, s);
      if (v.valid ? errors.length > 0 : !failsFor(errors, v.keyword)) continue;
      out.push({
        valid: v.valid,
        reason: `${p.in} parameter ${p.name}: ${v.reason}`,
        input: { ...base, params: { ...base.params, [k]: s } },
      });
    }
  }
  if (op.body && base.body !== undefined) {
    for (const v of variantsOf(op.body.schema, base.body)) {
      const errors = schemaErrors(op.body.schema, v.value);
      if (v.valid ? errors.length > 0 : !failsFor(errors, v.keyword)) continue;
      out.push({ valid: v.valid, reason: `body ${v.reason}`, input: { ...base, body: v.value } });
    }
  }
  return out;
}

/** The parameter's typed value, for variants (a query `5` of an integer schema is 5). */
function parseWire(value: string, p: Parameter): unknown {
  const types = Array.isArray(p.schema.type) ? p.schema.type : [p.schema.type];
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && !Number.isNaN(Number(value)))
    return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The arbitrary of fuzz inputs: valid ones, and one variant of a valid one (valid or not). */
export function fuzzArbitrary(op: Operation): fc.Arbitrary<FuzzInput> {
  const valid = inputArbitrary(op);
  const varied = valid.chain((base): fc.Arbitrary<FuzzInput> => {
    const variants: FuzzInput[] = inputVariants(op, base)
      .filter((v) => !v.missingHeader)
      .map(({ valid, reason, input }) => ({ valid, reason, input }));
    if (variants.length === 0) return fc.constant({ valid: true, reason: 'random valid input', input: base });
    return fc.constantFrom(...variants);
  });
  return fc.oneof(
    valid.map((input): FuzzInput => ({ valid: true, reason: 'random valid input', input })),
    varied,
  );
}

/** One fuzz input: valid or not, why, and the values. */
export type FuzzInput = { valid: boolean; reason: string; input: CaseInput };

/** The examples of `op` in the contract as inputs (parameter examples and body examples combined). */
export function exampleInputs(op: Operation): CaseInput[] {
  const params: Record<string, string> = {};
  for (const p of op.parameters) {
    const example = p.example ?? (p.schema.examples as unknown[] | undefined)?.[0] ?? p.schema.example;
    if (example !== undefined) params[key(p)] = wire(example);
    else if (p.required) return [];
  }
  if (!op.body) return op.parameters.length === 0 || Object.keys(params).length > 0 ? [{ params }] : [];
  return op.body.examples.map((body) => ({ params, body }));
}
