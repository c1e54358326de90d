/** JSON Schema as the engine reads every contract format: a plain object, its local `$ref`s resolved in place. */

/** A JSON Schema node, `$ref`s resolved. */
export type Schema = Record<string, unknown>;

/** Resolves every local `$ref` of `node` against `doc` (acyclic contracts), keeping sibling keywords. */
export function resolveRefs(doc: Record<string, unknown>, node: unknown, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(doc, n, seen));
  if (typeof node !== 'object' || node === null) return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (seen.includes(ref)) throw new Error(`cyclic $ref ${ref}`);
    const target = pointer(doc, ref);
    const { $ref: _ref, ...siblings } = obj;
    const resolved = resolveRefs(doc, target, [...seen, ref]) as Record<string, unknown>;
    return { ...resolved, ...(resolveRefs(doc, siblings, seen) as Record<string, unknown>) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj))
    out[k] = k === 'example' || k === 'examples' ? v : resolveRefs(doc, v, seen);
  return out;
}

function pointer(doc: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown>)?.[key];
    if (node === undefined) throw new Error(`$ref ${ref} points at nothing`);
  }
  return node;
}
