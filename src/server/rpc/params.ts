/**
 * Validates JSON-RPC params against the OpenRPC contract before anything is relayed (issue: "Parameters
 * are validated against the OpenRPC schemas before anything is relayed"). OpenRPC 1.3 schemas are JSON
 * Schema draft-07, so ajv's draft-07 class is used.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { chainOpenRpcDocument } from '../../../generated/chain/document.gen';
import { JsonRpcFailure } from './errors.ts';

type Descriptor = { name: string; required?: boolean; schema: unknown };
type MethodDoc = { name: string; params: Descriptor[]; 'x-transport'?: string };

/** Rewrites local refs so each method's params schema can point into the shared components. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openrpc${v}` : rebase(v)]),
  );
}

/** The contract's methods and a params validator for each. */
export class ParamsValidator {
  private readonly validators = new Map<string, { names: string[]; required: number; validate: ValidateFunction }>();
  /** Methods the contract marks `x-transport: websocket` (served on /ws only). */
  readonly websocketOnly = new Set<string>();

  /** Compiles every method's params schema once. */
  constructor() {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openrpc', components: rebase(chainOpenRpcDocument.components) }, 'openrpc');
    for (const method of chainOpenRpcDocument.methods as unknown as MethodDoc[]) {
      if (method['x-transport'] === 'websocket') this.websocketOnly.add(method.name);
      const required = method.params.filter((p) => p.required).length;
      const schema = method.params.length
        ? { type: 'array', items: method.params.map((p) => rebase(p.schema)), additionalItems: false, minItems: required }
        : { type: 'array', maxItems: 0 };
      this.validators.set(method.name, { names: method.params.map((p) => p.name), required, validate: ajv.compile(schema) });
    }
  }

  /** Whether the contract defines `method`. */
  has(method: string): boolean {
    return this.validators.has(method);
  }

  /** Throws InvalidParams naming the parameter and the expectation, or returns the params as an array. */
  check(method: string, params: unknown): unknown[] {
    const entry = this.validators.get(method)!;
    const list = params === undefined ? [] : params;
    if (!Array.isArray(list)) throw new JsonRpcFailure('InvalidParams', `${method} expects params as an array (by position)`);
    if (entry.validate(list)) return list;
    throw new JsonRpcFailure('InvalidParams', describe(entry.validate.errors?.[0], entry.names, list, method));
  }
}

/** Renders an ajv error as `"blockNumber" expected …, got …` (house rule 4). */
function describe(error: ErrorObject | undefined, names: string[], params: unknown[], method: string): string {
  if (!error) return `${method} params are invalid`;
  if (error.instancePath === '') {
    if (error.keyword === 'minItems') return `${method} expects at least ${error.params.limit} params, got ${params.length}`;
    if (error.keyword === 'additionalItems' || error.keyword === 'maxItems') return `${method} expects at most ${names.length} params, got ${params.length}`;
    return `${method} params ${error.message}`;
  }
  const [, index, ...rest] = error.instancePath.split('/');
  const name = names[Number(index)] ?? `param ${index}`;
  const where = rest.length ? `${name}.${rest.join('.')}` : name;
  const value = rest.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], params[Number(index)]);
  return `"${where}" ${error.message}, got ${JSON.stringify(value)}`;
}
