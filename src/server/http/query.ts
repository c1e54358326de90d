/**
 * Query strings at the edges: every query value arrives as text, while the contracts type `page` and `limit`
 * as integers (D-025). Plain integers are converted so the generated zod schemas can check their range;
 * anything else stays text and is refused by the schema with a 400 naming the field.
 */

/** Converts the paging parameters `keys` of `query` to numbers when they are plain integers. */
export function withIntegers(query: unknown, keys: readonly string[] = ['page', 'limit']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries((query ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      keys.includes(k) && typeof v === 'string' && /^-?\d{1,9}$/.test(v) ? Number(v) : v,
    ]),
  );
}
