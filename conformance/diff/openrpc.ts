/**
 * OpenRPC rules (D-247): methods, their params by position, results and documented error codes, from the point
 * of view of a JSON-RPC client built on the old contract.
 */
import { type Changes, isObject, type Json, pointer, text } from './model.ts';
import { derefObject } from './refs.ts';
import { compareSchemas, type SchemaContext, type Direction } from './schema.ts';

/** The rules of this file that are not schema rules, with their levels. */
export const OPENRPC_RULES = {
  'openrpc.method_removed': 'breaking',
  'openrpc.method_renamed': 'breaking',
  'openrpc.method_added': 'info',
  'openrpc.method_deprecated': 'warning',
  'openrpc.param_structure_changed': 'breaking',
  'openrpc.param_removed': 'breaking',
  'openrpc.param_reordered': 'breaking',
  'openrpc.required_param_added': 'breaking',
  'openrpc.param_added': 'info',
  'openrpc.param_became_required': 'breaking',
  'openrpc.param_became_optional': 'info',
  'openrpc.result_removed': 'breaking',
  'openrpc.error_code_removed': 'breaking',
  'openrpc.error_code_added': 'info',
} as const;

type Rule = keyof typeof OPENRPC_RULES;
type Add = (rule: Rule, place: string, message: string, oldPointer?: string, newPointer?: string) => void;
type Node = { node: Json; at: string };
type Method = Node & { params: Node[]; result?: Node; errors: Map<string, string> };

function methods(doc: Json, contract: string): Map<string, Method> {
  const found = new Map<string, Method>();
  if (!Array.isArray(doc.methods)) return found;
  doc.methods.forEach((entry, index) => {
    const method = derefObject(doc, { node: entry, at: pointer('', 'methods', index) }, contract);
    if (typeof method.node.name !== 'string') return;
    const params = Array.isArray(method.node.params)
      ? method.node.params.map((param, i) =>
          derefObject(doc, { node: param, at: pointer(method.at, 'params', i) }, contract),
        )
      : [];
    const result =
      method.node.result === undefined
        ? undefined
        : derefObject(doc, { node: method.node.result, at: pointer(method.at, 'result') }, contract);
    const errors = new Map<string, string>();
    if (Array.isArray(method.node.errors))
      method.node.errors.forEach((error, i) => {
        const resolved = derefObject(doc, { node: error, at: pointer(method.at, 'errors', i) }, contract);
        errors.set(text(resolved.node.code), resolved.at);
      });
    found.set(method.node.name, { ...method, params, result, errors });
  });
  return found;
}

/** What a method takes and gives, to recognise a method renamed with nothing else changed. */
function signature(method: Method): string {
  return JSON.stringify([
    method.params.map((p) => [p.node.name, p.node.required, p.node.schema]),
    method.result?.node.schema,
  ]);
}

/** Compares two OpenRPC documents. */
export function diffOpenRpc(oldDoc: Json, newDoc: Json, changes: Changes, budget: { left: number }): void {
  const add: Add = (rule, place, message, oldPointer, newPointer) =>
    changes.add({ rule, level: OPENRPC_RULES[rule], place, message, oldPointer, newPointer });
  const before = methods(oldDoc, changes.contract);
  const after = methods(newDoc, changes.contract);
  const added = [...after.keys()].filter((name) => !before.has(name));
  for (const [name, method] of before) {
    const match = after.get(name);
    if (!match) {
      const renamed = added.find((other) => {
        const candidate = after.get(other);
        return candidate !== undefined && signature(candidate) === signature(method);
      });
      if (renamed) {
        added.splice(added.indexOf(renamed), 1);
        add(
          'openrpc.method_renamed',
          name,
          `method ${name} renamed to ${renamed}: every client call by the old name fails with -32601`,
          method.at,
          after.get(renamed)?.at,
        );
      } else
        add(
          'openrpc.method_removed',
          name,
          `method ${name} removed: every client call to it fails with -32601`,
          method.at,
        );
      continue;
    }
    compareMethod(oldDoc, newDoc, changes, budget, add, name, method, match);
  }
  for (const name of added) add('openrpc.method_added', name, `method ${name} added`, undefined, after.get(name)?.at);
}

function compareMethod(
  oldDoc: Json,
  newDoc: Json,
  changes: Changes,
  budget: { left: number },
  add: Add,
  name: string,
  before: Method,
  after: Method,
): void {
  const context = (prefix: string, direction: Direction): SchemaContext => ({
    oldDoc,
    newDoc,
    changes,
    prefix,
    direction,
    place: name,
    reader: 'client',
    budget,
  });
  if (before.node.deprecated !== true && after.node.deprecated === true)
    add(
      'openrpc.method_deprecated',
      name,
      `method ${name} deprecated: clients should move off it`,
      before.at,
      after.at,
    );
  const structure = (m: Method) => text(m.node.paramStructure ?? 'either');
  if (structure(before) !== structure(after))
    add(
      'openrpc.param_structure_changed',
      name,
      `paramStructure ${structure(before)} became ${structure(after)}: clients that pass params the old way are refused`,
      before.at,
      after.at,
    );
  const newNames = after.params.map((p) => p.node.name);
  before.params.forEach((param, index) => {
    const position = newNames.indexOf(param.node.name);
    if (position === -1) {
      add(
        'openrpc.param_removed',
        name,
        `param ${text(param.node.name)} (position ${index}) removed: clients that send it are refused or misread`,
        param.at,
      );
      return;
    }
    const match = after.params[position] as Node;
    if (position !== index)
      add(
        'openrpc.param_reordered',
        name,
        `param ${text(param.node.name)} moved from position ${index} to ${position}: clients that pass params by position send it in the wrong place`,
        param.at,
        match.at,
      );
    if (param.node.required !== true && match.node.required === true)
      add(
        'openrpc.param_became_required',
        name,
        `param ${text(param.node.name)} became required: clients that leave it out are refused`,
        param.at,
        match.at,
      );
    if (param.node.required === true && match.node.required !== true)
      add('openrpc.param_became_optional', name, `param ${text(param.node.name)} became optional`, param.at, match.at);
    if (param.node.schema !== undefined && match.node.schema !== undefined)
      compareSchemas(
        context('openrpc.param', 'sent'),
        { node: param.node.schema, at: pointer(param.at, 'schema') },
        { node: match.node.schema, at: pointer(match.at, 'schema') },
      );
  });
  const oldNames = new Set(before.params.map((p) => p.node.name));
  for (const param of after.params) {
    if (oldNames.has(param.node.name)) continue;
    if (param.node.required === true)
      add(
        'openrpc.required_param_added',
        name,
        `required param ${text(param.node.name)} added: every existing client call lacks it and is refused`,
        undefined,
        param.at,
      );
    else add('openrpc.param_added', name, `optional param ${text(param.node.name)} added`, undefined, param.at);
  }
  if (before.result && !after.result)
    add('openrpc.result_removed', name, 'result removed: a client that reads it gets nothing', before.result.at);
  else if (
    before.result &&
    after.result &&
    isObject(before.result.node) &&
    before.result.node.schema !== undefined &&
    after.result.node.schema !== undefined
  )
    compareSchemas(
      context('openrpc.result', 'parsed'),
      { node: before.result.node.schema, at: pointer(before.result.at, 'schema') },
      { node: after.result.node.schema, at: pointer(after.result.at, 'schema') },
    );
  for (const [code, at] of before.errors)
    if (!after.errors.has(code))
      add(
        'openrpc.error_code_removed',
        name,
        `error code ${code} removed from the documented set: a client that handles it no longer knows what it means`,
        at,
      );
  for (const [code, at] of after.errors)
    if (!before.errors.has(code))
      add('openrpc.error_code_added', name, `error code ${code} added to the documented set`, undefined, at);
}
