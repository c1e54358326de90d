/**
 * The chain JSON-RPC contract as the engine reads it (`specs/chain.openrpc.json`, OpenRPC 1.3, JSON Schema
 * draft-07): every HTTP method (the WebSocket-only ones are left out, D-012) with its positional params,
 * result schema and documented error codes, and the cases generated from them — examples, coverage variants
 * and fuzz — each one JSON-RPC 2.0 request sent as `POST {rpc}`.
 */
import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { arbitraryOf } from '../core/arbitrary.ts';
import type { CaseInput, EngineCase, Phase } from '../core/cases.ts';
import { resolveRefs, type Schema } from '../core/schema.ts';
import { registerAjvFormats } from '../core/formats.ts';
import { registerAjvKeywords } from '../core/keywords.ts';
import { failsFor, variantsOf } from '../core/variants.ts';

/** The engine's name of the chain JSON-RPC surface. */
export const CHAIN_SURFACE = 'chain' as const;

/** One positional param of a method. */
export interface RpcParam {
  name: string;
  required: boolean;
  schema: Schema;
}

/** One error object of the contract (`components/errors`). */
export interface RpcErrorSpec {
  name: string;
  code: number;
  message: string;
}

/** One method of the contract. */
export interface RpcMethod {
  name: string;
  params: RpcParam[];
  result: Schema;
  /** The error objects the method documents. */
  errors: RpcErrorSpec[];
  /** Param lists of the method's OpenRPC examples, but those marked `x-illustrative` (D-231). */
  examples: unknown[][];
}

/** The parsed chain contract. */
export interface RpcContract {
  methods: RpcMethod[];
  /** Every error object of `components/errors`. */
  errors: RpcErrorSpec[];
  /** `components/schemas/JsonRpcError`, the shape of every error object (D-023). */
  errorSchema: Schema;
}

/**
 * The codes of JSON-RPC 2.0 and EIP-1474 that any answer may carry besides the contract's own: parse error,
 * invalid request, method not found, invalid params, internal error, and EIP-1474's -32000 to -32006.
 */
export const STANDARD_CODES = new Set([
  -32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32003, -32004, -32005, -32006,
]);

/**
 * EIP-1474 codes of a refusal for the chain's state rather than the params (D-193): invalid input or a revert
 * (-32000), resource not found (-32001: an unknown block hash), resource unavailable (-32002), transaction
 * rejected (-32003: insufficient funds), sender not authorized (-32007, D-050).
 */
export const STATE_CODES = new Set([-32000, -32001, -32002, -32003, -32007]);

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, shaped by the OpenRPC 1.3 structure
type Json = any;

/** Parses `chain.openrpc.json` from `specsDir`. */
export function loadRpcContract(specsDir: string): RpcContract {
  const raw = JSON.parse(readFileSync(`${specsDir}/chain.openrpc.json`, 'utf8')) as Record<string, unknown>;
  const doc = resolveRefs(raw, raw) as Json;
  const errors: RpcErrorSpec[] = Object.entries<Json>(doc.components?.errors ?? {}).map(([name, e]) => ({
    name,
    code: e.code,
    message: e.message,
  }));
  const methods: RpcMethod[] = [];
  for (const m of doc.methods ?? []) {
    if (m['x-transport'] === 'websocket') continue; // D-012: subscriptions only over /ws
    methods.push({
      name: m.name,
      params: (m.params ?? []).map((p: Json) => ({
        name: p.name,
        required: p.required === true,
        schema: p.schema ?? {},
      })),
      result: m.result?.schema ?? {},
      errors: (m.errors ?? []).map((e: Json) => ({
        name: errors.find((x) => x.code === e.code && x.message === e.message)?.name ?? String(e.code),
        code: e.code,
        message: e.message,
      })),
      // An example the contract marks illustrative (D-231) shows a shape, not a value a node must accept.
      examples: (m.examples ?? [])
        .filter((ex: Json) => ex['x-illustrative'] !== true)
        .map((ex: Json) => (ex.params ?? []).map((p: Json) => p.value)),
    });
  }
  return { methods, errors, errorSchema: doc.components?.schemas?.JsonRpcError ?? {} };
}

const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
registerAjvFormats(ajv as unknown as Parameters<typeof registerAjvFormats>[0]);
// D-197: `x-same-data` and `x-block-range`, so a generated call with differing `data` and `input`, or a
// reversed log range, is invalid.
registerAjvKeywords(ajv);
const compiled = new WeakMap<Schema, ValidateFunction>();

/** The draft-07 errors of `value` against `schema` (empty when valid). */
export function rpcSchemaErrors(schema: Schema, value: unknown): ErrorObject[] {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn(value) ? [] : [...(fn.errors ?? [])];
}

/** The errors of a whole param list: each param against its schema, a missing required one, an extra one. */
export function paramsErrors(method: RpcMethod, params: unknown[]): string[] {
  const out: string[] = [];
  if (params.length > method.params.length)
    out.push(`${params.length} params, the method takes ${method.params.length}`);
  method.params.forEach((p, i) => {
    if (i >= params.length) {
      if (p.required) out.push(`${p.name} missing (required)`);
      return;
    }
    for (const e of rpcSchemaErrors(p.schema, params[i])) out.push(`${p.name}${e.instancePath} ${e.message}`);
  });
  return out;
}

/** A chain case: an {@link EngineCase} whose body is the JSON-RPC request and whose operation is the method. */
export type RpcCase = Omit<EngineCase, 'surface'> & { surface: typeof CHAIN_SURFACE };

/** The JSON-RPC request of a param list (id: the case's number in its phase). */
export function rpcBody(method: string, params: unknown[], id: number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params };
}

/** The arbitrary of valid param lists: every required param, trailing optional ones sometimes. */
export function paramsArbitrary(method: RpcMethod): fc.Arbitrary<unknown[]> {
  const valued = method.params.map((p) =>
    arbitraryOf(p.schema).filter((v) => rpcSchemaErrors(p.schema, v).length === 0),
  );
  const required = method.params.filter((p) => p.required).length;
  // Positional params: an optional one can be left out only at the end of the list.
  return fc
    .tuple(...valued, fc.integer({ min: required, max: method.params.length }))
    .map((all) => (all.slice(0, -1) as unknown[]).slice(0, all[all.length - 1] as number));
}

/** One input of a method: valid or not, and why. */
export type RpcInput = { valid: boolean; reason: string; params: unknown[] };

/** Variants of a valid param list: each param's keyword variants (judged by ajv), a required one left out, one too many. */
export function paramsVariants(method: RpcMethod, base: unknown[]): RpcInput[] {
  const out: RpcInput[] = [];
  method.params.forEach((p, i) => {
    if (i >= base.length) return;
    for (const v of variantsOf(p.schema, base[i])) {
      const errors = rpcSchemaErrors(p.schema, v.value);
      if (v.valid ? errors.length > 0 : !failsFor(errors, v.keyword)) continue;
      const params = [...base];
      params[i] = v.value;
      out.push({ valid: v.valid, reason: `param ${p.name}: ${v.reason}`, params });
    }
  });
  const lastRequired = method.params.map((p) => p.required).lastIndexOf(true);
  if (lastRequired >= 0)
    out.push({
      valid: false,
      reason: `param ${method.params[lastRequired]?.name} missing (required)`,
      params: base.slice(0, lastRequired),
    });
  // A param past the method's list (EIP-1474 methods take fixed positions, D-193).
  out.push({
    valid: false,
    reason: `an extra param past the ${method.params.length} the method takes`,
    params: [...base, ...method.params.slice(base.length).map(() => null), '0x0'],
  });
  return out.filter((v) => (paramsErrors(method, v.params).length === 0) === v.valid);
}

/** The fuzz arbitrary: valid lists, and one variant of a valid list. */
export function rpcFuzzArbitrary(method: RpcMethod): fc.Arbitrary<RpcInput> {
  const valid = paramsArbitrary(method);
  const varied = valid.chain((base): fc.Arbitrary<RpcInput> => {
    const variants = paramsVariants(method, base);
    return variants.length === 0
      ? fc.constant({ valid: true, reason: 'random valid params', params: base })
      : fc.constantFrom(...variants);
  });
  return fc.oneof(
    valid.map((params): RpcInput => ({ valid: true, reason: 'random valid params', params })),
    varied,
  );
}

/** The inputs of one phase for one method (seeded: the same seed gives the same inputs). */
export function rpcInputs(method: RpcMethod, phase: Phase, seed: number, maxExamples: number): RpcInput[] {
  if (phase === 'examples')
    return method.examples.map((params) => ({
      valid: paramsErrors(method, params).length === 0,
      reason: 'contract example',
      params,
    }));
  if (phase === 'coverage') {
    const [base] = fc.sample(paramsArbitrary(method), { seed, numRuns: 1 });
    if (!base) return [];
    return [{ valid: true, reason: 'valid params', params: base }, ...paramsVariants(method, base)];
  }
  if (phase === 'fuzz') return fc.sample(rpcFuzzArbitrary(method), { seed, numRuns: maxExamples });
  return [];
}

/** The case of one input. */
export function rpcCase(method: RpcMethod, phase: Phase, input: RpcInput, id: number): RpcCase {
  const body: CaseInput = { params: {}, body: rpcBody(method.name, input.params, id) };
  return {
    surface: CHAIN_SURFACE,
    operation: method.name,
    phase,
    kind: input.valid ? 'positive' : 'negative',
    reason: input.reason,
    input: body,
    method: 'POST',
    authenticated: false,
  };
}
