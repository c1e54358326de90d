// JSON Pointer (RFC 6901) helpers and local "$ref" following for the contract documents.

/** One pointer segment: an object key or an array index. */
export type Segment = string | number;

/** Escapes one segment for a JSON Pointer (RFC 6901: "~" as "~0", "/" as "~1"). */
export function escapeSegment(segment: Segment): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The display form of a pointer, e.g. `#/paths/~1accounts/get`. */
export function formatPointer(at: readonly Segment[]): string {
  return `#${at.map((s) => `/${escapeSegment(s)}`).join('')}`;
}

/** The URI-fragment form of a pointer, as ajv expects inside a "$ref". */
export function pointerFragment(at: readonly Segment[]): string {
  return `#${at.map((s) => `/${encodeURIComponent(escapeSegment(s))}`).join('')}`;
}

/** The value at a pointer, or undefined when any step is missing. */
export function getAt(doc: unknown, at: readonly Segment[]): unknown {
  let node: unknown = doc;
  for (const segment of at) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[String(segment)];
  }
  return node;
}

/** Parses a local reference (`#/a/b`) into segments; undefined for anything else. */
export function parseLocalRef(ref: string): string[] | undefined {
  if (ref === '#') return [];
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** True for a plain (non-array) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Follows a chain of local "$ref"s starting at `at`, for non-schema objects (parameters, examples,
 * messages, traits, content descriptors); schemas are left to ajv. Throws on a remote, missing or
 * cyclic reference.
 */
export function deref(doc: unknown, at: readonly Segment[]): { node: unknown; at: Segment[] } {
  let current: Segment[] = [...at];
  const seen = new Set<string>();
  for (;;) {
    const node = getAt(doc, current);
    if (!isObject(node) || typeof node.$ref !== 'string') return { node, at: current };
    const key = formatPointer(current);
    if (seen.has(key)) throw new Error(`cyclic $ref at ${key}`);
    seen.add(key);
    const target = parseLocalRef(node.$ref);
    if (!target) throw new Error(`${key}: only local references are followed, got ${JSON.stringify(node.$ref)}`);
    if (getAt(doc, target) === undefined) throw new Error(`${key}: $ref ${JSON.stringify(node.$ref)} points nowhere`);
    current = target;
  }
}
