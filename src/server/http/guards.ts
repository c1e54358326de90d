/**
 * Guards at the edges (house rule 4): request parts are parsed with the contract's generated zod schemas
 * and a failure becomes a 400 naming the field, the expectation and the value, e.g.
 * `"id" expected a decimal block number or a 0x-prefixed 32-byte hash, got "abc"`.
 */
import type { z } from 'zod';
import { badRequest } from './errors.ts';

/** Parses `value` with `schema`, or throws a 400 whose message names the first bad field. */
export function guard<S extends z.ZodType>(schema: S, value: unknown, explain: Record<string, string> = {}): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  const got = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey], value);
  const expectation = explain[field] ?? issue.message;
  throw badRequest(`"${field}" expected ${expectation}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`);
}
