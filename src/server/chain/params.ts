/**
 * Validates JSON-RPC params against the OpenRPC contract before anything is relayed ("Parameters
 * are validated against the OpenRPC schemas before anything is relayed"). OpenRPC 1.3 schemas are JSON
 * Schema draft-07, so ajv's draft-07 class is used.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { chainOpenRpcDocument } from '@svckit/sdk/chain/document';
import { addressKind, checksumOk } from '../wallet/addresses.ts';
import { JsonRpcFailure } from './errors.ts';
import { addChainKeywords } from './keywords.ts';

type Descriptor = { name: string; required?: boolean; schema: { $ref?: string } };
type MethodDoc = { name: string; params: Descriptor[]; 'x-transport'?: string };

/** Rewrites local refs so each method's params schema can point into the shared components. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openrpc${v}` : rebase(v),
    ]),
  );
}

/** The contract's methods and a params validator for each. */
export class ParamsValidator {
  private readonly validators = new Map<
    string,
    { names: string[]; kinds: (string | undefined)[]; required: number; validate: ValidateFunction }
  >();
  /** Methods the contract marks `x-transport: websocket` (served on /ws only). */
  readonly websocketOnly = new Set<string>();

  /** Compiles every method's params schema once. */
  constructor() {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(ajv);
    // D-172: DATA20 is `format: evm-address`, single case or a valid EIP-55 checksum (D-040).
    ajv.addFormat('evm-address', {
      type: 'string',
      validate: (a: string) => addressKind(a) === 'evm' && checksumOk(a),
    });
    // D-197: the call objects' `x-same-data` (D-131) and the log filter's `x-block-range`.
    addChainKeywords(ajv);
    ajv.addSchema({ $id: 'openrpc', components: rebase(chainOpenRpcDocument.components) }, 'openrpc');
    for (const method of chainOpenRpcDocument.methods as unknown as MethodDoc[]) {
      if (method['x-transport'] === 'websocket') this.websocketOnly.add(method.name);
      const required = method.params.filter((p) => p.required).length;
      const schema = method.params.length
        ? {
            type: 'array',
            items: method.params.map((p) => rebase(p.schema)),
            additionalItems: false,
            minItems: required,
          }
        : { type: 'array', maxItems: 0 };
      const kinds = method.params.map((p) => p.schema.$ref?.split('/').pop());
      this.validators.set(method.name, {
        names: method.params.map((p) => p.name),
        kinds,
        required,
        validate: ajv.compile(schema),
      });
    }
  }

  /** Whether the contract defines `method`. */
  has(method: string): boolean {
    return this.validators.has(method);
  }

  /**
   * Throws InvalidParams naming the parameter and the expectation, or returns the params as an array, with
   * block parameters in the one form every node reads (D-131).
   */
  check(method: string, params: unknown): unknown[] {
    const entry = this.validators.get(method)!;
    const list = params === undefined ? [] : params;
    if (!Array.isArray(list))
      throw new JsonRpcFailure('InvalidParams', `${method} expects params as an array (by position)`);
    if (!entry.validate(list))
      throw new JsonRpcFailure('InvalidParams', describe(entry.validate.errors?.[0], entry.names, list, method));
    return list.map((value, i) => normalise(entry.kinds[i], value));
  }
}

/**
 * D-131: a block number or tag as the node is sent it. Tags go in lower case (Besu reads any case; Anvil and
 * Geth only lower case); `finalized` and `safe` name the latest block, because QBFT blocks are final once
 * sealed (an Anvil node would otherwise answer a block 32 or 64 behind the head). A number goes as a
 * canonical QUANTITY, so `0x01` and `0x1` reach the node, the block cache and the local methods alike.
 */
function canonicalBlock(value: string): string {
  const tag = value.toLowerCase();
  if (tag === 'finalized' || tag === 'safe') return 'latest';
  if (!tag.startsWith('0x')) return tag;
  return `0x${BigInt(tag).toString(16)}`;
}

/** D-131: a validated parameter in its canonical form; other parameters go to the node unchanged. */
function normalise(kind: string | undefined, value: unknown): unknown {
  if (kind === 'BlockNumberOrTag') return canonicalBlock(value as string);
  if (kind === 'BlockNumberOrTagOrHash') {
    // A 66-character string is a block hash, as Besu, Anvil and execution-apis read it.
    if (typeof value === 'string') return value.length === 66 ? value.toLowerCase() : canonicalBlock(value);
    const block = value as { blockNumber?: string; blockHash?: string; requireCanonical?: boolean };
    if (block.blockNumber !== undefined) return { blockNumber: canonicalBlock(block.blockNumber) };
    return { ...block, blockHash: block.blockHash!.toLowerCase() };
  }
  if (kind === 'Filter') {
    const filter = { ...(value as { fromBlock?: string; toBlock?: string }) };
    if (filter.fromBlock !== undefined) filter.fromBlock = canonicalBlock(filter.fromBlock);
    if (filter.toBlock !== undefined) filter.toBlock = canonicalBlock(filter.toBlock);
    return filter;
  }
  return value;
}

/** Renders an ajv error as `"blockNumber" expected …, got …` (house rule 4). */
function describe(error: ErrorObject | undefined, names: string[], params: unknown[], method: string): string {
  if (!error) return `${method} params are invalid`;
  if (error.instancePath === '') {
    if (error.keyword === 'minItems')
      return `${method} expects at least ${error.params.limit} params, got ${params.length}`;
    if (error.keyword === 'additionalItems' || error.keyword === 'maxItems')
      return `${method} expects at most ${names.length} params, got ${params.length}`;
    return `${method} params ${error.message}`;
  }
  const [, index, ...rest] = error.instancePath.split('/');
  const name = names[Number(index)] ?? `param ${index}`;
  const where = rest.length ? `${name}.${rest.join('.')}` : name;
  const value = rest.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], params[Number(index)]);
  return `"${where}" ${error.message}, got ${JSON.stringify(value)}`;
}
