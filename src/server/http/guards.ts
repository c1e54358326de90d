/**
 * Guards at the edges (house rule 4): request parts are parsed with the contract's generated zod schemas
 * and a failure becomes a 400 naming the field, the expectation and the value, e.g.
 * `"id" expected a decimal block number or a 0x-prefixed 32-byte hash, got "abc"`.
 */
import type { z } from 'zod';
import { ErrorCode, RestError } from './errors.ts';

/** `permissions[0]`, `limits.daily`: the field as the contracts' error examples name it. */
const fieldName = (path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)),
    '',
  );

/**
 * Parses `value` with `schema`, or throws a 400 whose message names the first bad field. `explain` gives
 * the expectation per field; `accountIds[]` stands for every element of `accountIds`.
 */
export function guard<S extends z.ZodType>(
  schema: S,
  value: unknown,
  explain: Record<string, string> = {},
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = (path: readonly PropertyKey[]) =>
    path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], value);
  if (issue.code === 'unrecognized_keys') {
    // A strict schema refuses fields the contract does not define (additionalProperties: false).
    const field = fieldName([...issue.path, issue.keys[0]!]);
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `"${field}" expected nothing: not a field of this request, got ${JSON.stringify(at([...issue.path, issue.keys[0]!]))}`,
    );
  }
  const field = fieldName(issue.path) || 'body';
  const got = at(issue.path);
  const expectation =
    explain[field] ??
    explain[field.replace(/\[\d+\]$/, '[]')] ??
    (issue.code === 'invalid_value' ? `one of ${issue.values.map(String).join(', ')}` : issue.message);
  throw new RestError(
    ErrorCode.INVALID_PARAMETER,
    `"${field}" expected ${expectation}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`,
  );
}

const strictSchemas = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * `schema.strict()`: refuses fields the contract does not define (`additionalProperties: false`). Built once
 * per schema and kept: zod builds and compiles a new schema on every `.strict()`, about 0.1 ms a request on
 * this machine against under 0.001 ms to parse with a kept one (measured with a throwaway script).
 */
export function strict<S extends z.ZodObject>(schema: S): ReturnType<S['strict']> {
  let built = strictSchemas.get(schema);
  if (!built) {
    built = schema.strict();
    strictSchemas.set(schema, built);
  }
  return built as ReturnType<S['strict']>;
}

/** The contracts' `minProperties: 1` on update bodies, which the generated schemas do not check. */
export function requireSome(body: object, fields: readonly string[]): void {
  if (!fields.some((f) => f in body))
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      `body expected at least one of ${fields.join(', ')}, got ${JSON.stringify(body)}`,
    );
}

/** The contracts' `uniqueItems: true`, which the generated schemas do not check. */
export function requireUnique(field: string, items: readonly string[] | undefined): void {
  const seen = new Set<string>();
  for (const [i, item] of (items ?? []).entries()) {
    if (seen.has(item))
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"${field}[${i}]" expected no repeated entries, got "${item}" twice`,
      );
    seen.add(item);
  }
}
