/**
 * $ref resolution inside one document (D-247): every local reference (`#/...`) is followed, so a change in a
 * shared component is found from each place that uses it. A reference to another file cannot be compared and is
 * refused as bad input; a cycle of references is refused too.
 */
import { isObject, type Json } from './model.ts';

/** How many references one chain may follow before it is taken for a cycle. */
const MAX_HOPS = 32;

/** Bad input: a contract `svckit diff` cannot read (exit 2). */
export class DiffInputError extends Error {}

/** A node of a document and its JSON pointer there. */
export type Located = { node: unknown; at: string };

/** The node a JSON pointer names, or undefined. */
export function atPointer(document: unknown, path: string): unknown {
  if (path === '') return document;
  let node: unknown = document;
  for (const raw of path.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
  }
  return node;
}

/** Follows `$ref` until a node without one; returns the node and where it is. */
export function deref(document: unknown, located: Located, contract: string): Located {
  let { node, at } = located;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
    if (hops === MAX_HOPS) throw new DiffInputError(`${contract}: $ref chain at ${located.at} is a cycle`);
    const ref = node.$ref;
    if (!ref.startsWith('#')) throw new DiffInputError(`${contract}: $ref "${ref}" at ${at} names another file`);
    try {
      at = decodeURIComponent(ref.slice(1));
    } catch {
      throw new DiffInputError(`${contract}: $ref "${ref}" at ${at} is not a valid URI fragment`);
    }
    node = atPointer(document, at);
    if (node === undefined) throw new DiffInputError(`${contract}: $ref "${ref}" names nothing in the document`);
  }
  return { node, at };
}

/** The object at a pointer after its $refs, or an empty object when it is not one. */
export function derefObject(document: unknown, located: Located, contract: string): { node: Json; at: string } {
  const found = deref(document, located, contract);
  return { node: isObject(found.node) ? found.node : {}, at: found.at };
}
