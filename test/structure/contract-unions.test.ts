// Contract string unions are imported from generated/, never copied: no hand-written union type or array
// literal in src/, conformance/ or cli/ carries exactly the values of a string enum of a contract in specs/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';

/** A string enum of a contract: where it is and its values. */
type ContractEnum = { where: string; values: string[] };

/** Every string enum with two or more values in the contract file `name` (OpenAPI, AsyncAPI, OpenRPC, JSON Schema). */
function contractEnums(name: string): ContractEnum[] {
  const text = readFileSync(path.join(REPO_ROOT, 'specs', name), 'utf8');
  const found: ContractEnum[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${pointer}/${i}`);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      // A nullable enum (`[..., null]`) counts by its strings.
      const strings = key === 'enum' && Array.isArray(value) ? value.filter((v) => v !== null) : [];
      if (strings.length >= 2 && strings.every((v) => typeof v === 'string'))
        found.push({ where: `specs/${name}#${pointer}`, values: strings });
      walk(value, `${pointer}/${key}`);
    }
  };
  walk(name.endsWith('.json') ? JSON.parse(text) : parse(text), '');
  return found;
}

/** The same set of values, whatever the order. */
const setKey = (values: readonly string[]) => JSON.stringify([...new Set(values)].sort());

/** Every .ts file under `dir` (relative to the repository), generated/ excepted. */
function sources(dir: string): string[] {
  const full = path.join(REPO_ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    const child = path.join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    if (statSync(path.join(REPO_ROOT, child)).isDirectory()) return sources(child);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [child] : [];
  });
}

/** A hand-written list of string literals in a source file: a union type or an array literal. */
type Literals = { where: string; text: string; values: string[] };

/** The string-literal unions (`'a' | 'b'`) and string-literal arrays (`['a', 'b']`) of one source file. */
function literalLists(file: string): Literals[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(REPO_ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: Literals[] = [];
  const stringOf = (node: ts.Node): string | undefined => {
    if (ts.isLiteralTypeNode(node)) node = node.literal;
    return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
  };
  const visit = (node: ts.Node): void => {
    const members = ts.isUnionTypeNode(node)
      ? node.types
      : ts.isArrayLiteralExpression(node)
        ? node.elements
        : undefined;
    if (members && members.length >= 2) {
      const values = members.map(stringOf);
      if (values.every((v) => v !== undefined)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push({ where: `${file}:${line + 1}`, text: node.getText(), values: values as string[] });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const contracts = readdirSync(path.join(REPO_ROOT, 'specs')).filter((name) =>
  /\.(openapi\.yaml|asyncapi\.yaml|openrpc\.json|schema\.json)$/.test(name),
);
const enums = contracts.flatMap(contractEnums);
const files = ['src', 'conformance', 'cli'].flatMap(sources);

describe('contract string unions', () => {
  it('finds the enums of every contract and the sources to check', () => {
    expect(contracts.length).toBeGreaterThanOrEqual(7);
    expect(enums.map((e) => e.where)).toEqual(
      expect.arrayContaining(['specs/institutional.openapi.yaml#/components/schemas/TransferStatus']),
    );
    expect(files.length).toBeGreaterThan(100);
  });

  it('recognises a hand copy', () => {
    const copy = literalLists('test/structure/fixtures/copied-union.ts').map((l) => setKey(l.values));
    expect(copy).toContain(setKey(['pending', 'confirmed', 'failed']));
    expect(copy).toContain(setKey(['out', 'in']));
  });

  it('are imported from generated/, never written out by hand', () => {
    const byValues = new Map<string, string[]>();
    for (const e of enums) byValues.set(setKey(e.values), [...(byValues.get(setKey(e.values)) ?? []), e.where]);
    const copies = files.flatMap(literalLists).flatMap((l) => {
      const contract = byValues.get(setKey(l.values));
      return contract ? [`${l.where} ${l.text} copies ${contract.join(', ')}`] : [];
    });
    expect(copies).toEqual([]);
  });
});
