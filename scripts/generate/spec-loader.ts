/** Reads a contract from specs/ (YAML or JSON) and follows local `#/...` references. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SPECS_DIR } from '../../src/paths.ts';

/** A parsed contract document. */
export type SpecDocument = Record<string, unknown>;

/** Loads `specs/<file>` as plain data. */
export function loadSpec(file: string): SpecDocument {
  const text = readFileSync(path.join(SPECS_DIR, file), 'utf8');
  return (file.endsWith('.json') ? JSON.parse(text) : parse(text)) as SpecDocument;
}

/** Follows a local JSON pointer such as `#/components/schemas/Account`. */
export function resolvePointer(doc: SpecDocument, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, got "${ref}"`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => {
      if (node === null || typeof node !== 'object' || !(key in node)) {
        throw new Error(`reference "${ref}" does not resolve`);
      }
      return (node as Record<string, unknown>)[key];
    }, doc);
}

/** Returns `node`, or what it points at when it is a `{ $ref }` object (one level, repeatedly). */
export function deref<T = Record<string, unknown>>(doc: SpecDocument, node: unknown): T {
  let current = node;
  while (current && typeof current === 'object' && '$ref' in current) {
    current = resolvePointer(doc, (current as { $ref: string }).$ref);
  }
  return current as T;
}

/** Converts `eth_getBlockByNumber` or `wallet-session` to `EthGetBlockByNumber` / `WalletSession`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
