// The schema → fast-check translation: valid values validate with ajv, and every variant the engine sends
// holds to its claim (a boundary validates, a negative fails ajv for the keyword it names).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parameterErrors, schemaErrors } from '../../../conformance/engine/core/ajv.ts';
import { arbitraryOf } from '../../../conformance/engine/core/arbitrary.ts';
import { inputArbitrary, inputVariants } from '../../../conformance/engine/openapi/inputs.ts';
import { ENGINE_SURFACES, type EngineSurface, loadContract } from '../../../conformance/engine/openapi/contract.ts';
import { FORMATS } from '../../../conformance/engine/core/formats.ts';
import { failsFor, variantsOf } from '../../../conformance/engine/core/variants.ts';
import { SPECS_DIR } from '../../../src/paths.ts';

const contracts = (Object.keys(ENGINE_SURFACES) as EngineSurface[]).map((s) => loadContract(SPECS_DIR, s));

describe('schema → arbitrary', () => {
  it('draws only values ajv accepts, for every body and parameter schema of the four contracts', () => {
    let checked = 0;
    for (const contract of contracts)
      for (const op of contract.operations) {
        const schemas = [...(op.body ? [op.body.schema] : []), ...op.parameters.map((p) => p.schema)];
        for (const schema of schemas)
          for (const value of fc.sample(arbitraryOf(schema), { seed: 7, numRuns: 10 })) {
            checked += 1;
            expect(schemaErrors(schema, value), `${op.id}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
          }
      }
    expect(checked).toBeGreaterThan(700);
  });

  it('gives the boundary and negative variants of each keyword of a small schema', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['limit', 'kind'],
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 200 },
        kind: { type: 'string', enum: ['a', 'b'] },
        code: { type: 'string', pattern: '^[A-Z]{3}$', minLength: 3, maxLength: 3 },
      },
    };
    const variants = variantsOf(schema, { limit: 5, kind: 'a', code: 'EUR' });
    const values = (keyword: string, valid: boolean) =>
      variants.filter((v) => v.keyword === keyword && v.valid === valid).map((v) => v.value);
    expect(values('minimum', true)).toContainEqual({ limit: 1, kind: 'a', code: 'EUR' });
    expect(values('minimum', false)).toContainEqual({ limit: 0, kind: 'a', code: 'EUR' });
    expect(values('maximum', true)).toContainEqual({ limit: 200, kind: 'a', code: 'EUR' });
    expect(values('maximum', false)).toContainEqual({ limit: 201, kind: 'a', code: 'EUR' });
    expect(values('enum', true)).toEqual([
      { limit: 5, kind: 'a', code: 'EUR' },
      { limit: 5, kind: 'b', code: 'EUR' },
    ]);
    expect(values('enum', false)).toEqual([{ limit: 5, kind: 'not-in-enum', code: 'EUR' }]);
    expect(values('required', false)).toEqual([
      { kind: 'a', code: 'EUR' },
      { limit: 5, code: 'EUR' },
    ]);
    expect(values('additionalProperties', false)).toEqual([
      { limit: 5, kind: 'a', code: 'EUR', unexpectedProperty: 'x' },
    ]);
    expect(values('maxLength', false)).toEqual([{ limit: 5, kind: 'a', code: 'EURR' }]);
    expect(values('minLength', false)).toEqual([{ limit: 5, kind: 'a', code: 'EU' }]);
    expect(values('pattern', false)).toEqual([{ limit: 5, kind: 'a', code: 'EUR!' }]);
    expect(values('type', false)).toContainEqual({ limit: 5, kind: 'a', code: null });
    for (const v of variants) {
      const errors = schemaErrors(schema, v.value);
      if (v.valid) expect(errors, v.reason).toEqual([]);
      else expect(failsFor(errors, v.keyword), `${v.reason}: ${JSON.stringify(errors)}`).toBe(true);
    }
  });

  it('keeps only variants that hold to their claim, covering every keyword the contracts use', () => {
    const keywords = new Set<string>();
    let negatives = 0;
    for (const contract of contracts)
      for (const op of contract.operations) {
        const [base] = fc.sample(inputArbitrary(op), { seed: 3, numRuns: 1 });
        if (!base) continue;
        for (const v of inputVariants(op, base)) {
          const reason = v.reason.match(
            /(minimum|maximum|minLength|maxLength|pattern|enum|format|required|additionalProperties|wrong type|null|minItems|maxItems)/,
          )?.[1];
          if (reason) keywords.add(reason);
          if (op.body && v.input.body !== base.body) {
            const errors = schemaErrors(op.body.schema, v.input.body);
            if (v.valid) expect(errors, `${op.id} ${v.reason}`).toEqual([]);
            else {
              negatives += 1;
              expect(errors.length, `${op.id} ${v.reason}`).toBeGreaterThan(0);
            }
          }
          for (const p of op.parameters) {
            const k = `${p.in}:${p.name}`;
            if (v.input.params[k] === base.params[k] || p.in === 'cookie') continue;
            if (v.input.params[k] === undefined) {
              // Left out: refused only because the parameter is required.
              expect(p.required && !v.valid, `${op.id} ${v.reason}`).toBe(true);
              continue;
            }
            const errors = parameterErrors(p.schema, v.input.params[k]);
            if (v.valid) expect(errors, `${op.id} ${v.reason}`).toEqual([]);
            else expect(errors.length, `${op.id} ${v.reason}`).toBeGreaterThan(0);
          }
        }
      }
    expect(negatives).toBeGreaterThan(300);
    for (const k of [
      'minimum',
      'maximum',
      'minLength',
      'maxLength',
      'pattern',
      'enum',
      'format',
      'required',
      'additionalProperties',
      'wrong type',
      'null',
      'minItems',
      'maxItems',
    ])
      expect(keywords, k).toContain(k);
  });

  it('generates a registered custom format (evm-address, D-172) and its non-matching strings', () => {
    const format = FORMATS.get('evm-address');
    expect(format).toBeDefined();
    const schema = { type: 'string', format: 'evm-address' };
    for (const value of fc.sample(arbitraryOf(schema), { seed: 1, numRuns: 50 }))
      expect(schemaErrors(schema, value)).toEqual([]);
    for (const bad of format?.invalid ?? []) expect(failsFor(schemaErrors(schema, bad), 'format')).toBe(true);
    // Single case is accepted; a checksummed address with one letter's case flipped is refused.
    expect(schemaErrors(schema, '0x5b38da6a701c568545dcfcb03fcb875f56beddc4')).toEqual([]);
    expect(schemaErrors(schema, '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4')).toEqual([]);
    expect(schemaErrors(schema, '0x5B38DA6a701c568545dCfcB03FcB875f56beddC4').length).toBeGreaterThan(0);
  });
});

describe('extension keywords (D-197, D-198)', () => {
  it('x-not-after-now: draws only past times, and its negative variant is a future time ajv refuses', () => {
    const schema = { type: 'string', format: 'date-time', 'x-not-after-now': true };
    for (const v of fc.sample(arbitraryOf(schema), { seed: 3, numRuns: 200 })) {
      expect(Date.parse(v as string)).toBeLessThanOrEqual(Date.now());
      expect(schemaErrors(schema, v)).toEqual([]);
    }
    const future = variantsOf(schema, '2026-01-01T00:00:00.000Z').find((v) => v.keyword === 'x-not-after-now');
    expect(future).toMatchObject({ valid: false, value: '2999-12-31T23:59:59.000Z' });
    expect(failsFor(schemaErrors(schema, future?.value), 'x-not-after-now')).toBe(true);
  });

  it('x-block-range: a reversed numbered range is a negative variant ajv refuses; tags are not compared', () => {
    const schema = {
      type: 'object',
      properties: { fromBlock: { type: 'string' }, toBlock: { type: 'string' } },
      'x-block-range': ['fromBlock', 'toBlock'],
    };
    const reversed = variantsOf(schema, { fromBlock: '0x1' }).find((v) => v.keyword === 'x-block-range');
    expect(reversed).toMatchObject({ valid: false, value: { fromBlock: '0x2', toBlock: '0x1' } });
    expect(failsFor(schemaErrors(schema, reversed?.value), 'x-block-range')).toBe(true);
    expect(schemaErrors(schema, { fromBlock: '0x1', toBlock: '0x1' })).toEqual([]);
    expect(schemaErrors(schema, { fromBlock: 'latest', toBlock: '0x0' })).toEqual([]);
  });
});
