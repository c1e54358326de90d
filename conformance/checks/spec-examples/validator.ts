// Validates example values against schemas inside one contract document, "$ref"s resolved against
// the document itself.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type AjvCore from 'ajv/dist/core.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { registerAjvKeywords } from '../../engine/core/keywords.ts';
import { addChainAddressFormat } from '../../formats/chain-address.ts';
import { addEvmAddressFormat } from '../../formats/evm-address.ts';
import { addMlKemKeyFormat } from '../../formats/mlkem-key.ts';
import { formatPointer, isObject, pointerFragment, type Segment } from './pointer.ts';

/** The JSON Schema dialect of a document's schemas. */
export type Dialect = '2020-12' | 'draft-07';

/** One example to validate: a value, and the schema it must satisfy (by pointer or as a node). */
export interface ExampleCase {
  /** Where the example sits, as a display pointer. */
  where: string;
  /** The value to validate. */
  value?: unknown;
  /** Pointer to the schema inside the document. */
  schemaAt?: Segment[];
  /** A schema built outside the document (e.g. merged traits); its local refs point into the document. */
  schemaNode?: Record<string, unknown>;
  /** A problem found while collecting (no schema, no value...): the example counts as failing. */
  problem?: string;
}

// Keywords whose values are data, not schemas: "$ref" inside them must not be rewritten.
const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'example', 'default']);

/** Compiles schemas of one document and validates example values against them. */
export class DocumentValidator {
  readonly #ajv: AjvCore;
  readonly #id: string;
  /** Warnings ajv emitted (e.g. an unknown format that it ignored). */
  readonly warnings: string[] = [];

  /** Registers the document with a fresh ajv of the given dialect. */
  constructor(doc: Record<string, unknown>, dialect: Dialect, name: string) {
    this.#id = `https://svckit.invalid/specs/${encodeURIComponent(name)}`;
    const logger = {
      log: () => {},
      warn: (...args: unknown[]) => void this.warnings.push(args.map(String).join(' ')),
      error: (...args: unknown[]) => void this.warnings.push(args.map(String).join(' ')),
    };
    const options = {
      // strict: false because OpenAPI 3.1, AsyncAPI 3.0 and OpenRPC schemas legitimately carry
      // keywords ajv does not know: `x-*` extensions (x-decision, x-permission), and the OpenAPI
      // dialect's `example`, `discriminator`, `xml` and `externalDocs`. Strict mode would refuse
      // to compile them; the schemas themselves are linted by redocly and the parsers.
      strict: false,
      allErrors: true,
      // Decimal limits use multipleOf 0.01 (D-002); plain division would reject 0.07.
      multipleOfPrecision: 9,
      logger,
    };
    // OpenAPI 3.1's default dialect is JSON Schema 2020-12; AsyncAPI 3.0 ("a superset of JSON Schema
    // Draft 07") and OpenRPC 1.x ("JSON Schema Specification 7") use draft-07.
    this.#ajv = dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options);
    addFormats(this.#ajv);
    addEvmAddressFormat(this.#ajv); // D-172
    addChainAddressFormat(this.#ajv); // D-188
    addMlKemKeyFormat(this.#ajv); // D-188
    registerAjvKeywords(this.#ajv); // D-197, D-198
    // The document is not a schema: its root is registered only so that "#/..." refs resolve.
    // AsyncAPI's root `id` would be read as the draft-04 keyword, so root keys that are schema
    // keywords are left out.
    const { id: _id, $id: _$id, $schema: _$schema, ...rest } = doc;
    this.#ajv.addSchema({ ...rest, $id: this.#id }, undefined, undefined, false);
  }

  /** Validates one case; returns error lines (empty when valid). */
  validate(example: ExampleCase): string[] {
    if (example.problem) return [`${example.where}: ${example.problem}`];
    let schema: Record<string, unknown>;
    if (example.schemaAt) schema = { $ref: `${this.#id}${pointerFragment(example.schemaAt)}` };
    else if (example.schemaNode) schema = this.#absolutise(example.schemaNode) as Record<string, unknown>;
    else return [`${example.where}: no schema to validate against`];
    let validate: ValidateFunction;
    try {
      validate = this.#ajv.compile(schema);
    } catch (err) {
      const at = example.schemaAt ? formatPointer(example.schemaAt) : 'merged schema';
      return [`${example.where}: schema at ${at} does not compile: ${(err as Error).message}`];
    }
    if (validate(example.value)) return [];
    return (validate.errors ?? []).map((e) => `${example.where}: ${formatAjvError(e)}`);
  }

  /** Rewrites local refs of a detached schema so they resolve inside the registered document. */
  #absolutise(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.#absolutise(n));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) out[key] = `${this.#id}${value}`;
      else out[key] = DATA_KEYWORDS.has(key) ? value : this.#absolutise(value);
    }
    return out;
  }
}

/** One ajv error as a line: where in the value, what failed, and the offending detail. */
export function formatAjvError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(value)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  let detail = '';
  if (typeof params.additionalProperty === 'string') detail = ` (${JSON.stringify(params.additionalProperty)})`;
  else if (Array.isArray(params.allowedValues))
    detail = ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`;
  else if ('allowedValue' in params) detail = ` (${JSON.stringify(params.allowedValue)})`;
  return `${where} ${error.message ?? error.keyword}${detail}`;
}
