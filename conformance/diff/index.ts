/**
 * `svckit diff` (D-246): every change between two versions of the contracts, classified as breaking, warning or
 * info with a stable rule id. The rules of each format are in their own file; docs/diff-rules.md describes each.
 */
import { ASYNCAPI_RULES, diffAsyncApi } from './asyncapi.ts';
import { type Change, Changes, type Contract, type Json, type Level, LEVELS, isObject } from './model.ts';
import { diffOpenApi, OPENAPI_RULES } from './openapi.ts';
import { diffOpenRpc, OPENRPC_RULES } from './openrpc.ts';
import { DiffInputError } from './refs.ts';
import { compareSchemas, NODE_BUDGET, SCHEMA_RULES } from './schema.ts';
import type { Side } from './load.ts';
import { VERSION_RULES, versionChanges } from './version.ts';

export { DiffInputError } from './refs.ts';
export { readSide } from './load.ts';
export type { Change, Level } from './model.ts';

/** Rules about whole contract files. */
export const CONTRACT_RULES = {
  'contract.removed': 'breaking',
  'contract.added': 'info',
  'contract.format_changed': 'breaking',
} as const;

/** The schema rule prefixes, with the direction each compares in. */
export const SCHEMA_CONTEXTS = {
  'openapi.request': 'sent',
  'openapi.response': 'parsed',
  'asyncapi.payload': 'parsed',
  'asyncapi.headers': 'parsed',
  'openrpc.param': 'sent',
  'openrpc.result': 'parsed',
  jsonschema: 'sent',
} as const;

/** Every rule id and its level: the catalogue docs/diff-rules.md describes. */
export function ruleCatalogue(): Map<string, Level> {
  const rules = new Map<string, Level>();
  for (const table of [CONTRACT_RULES, OPENAPI_RULES, ASYNCAPI_RULES, OPENRPC_RULES, VERSION_RULES])
    for (const [id, level] of Object.entries(table)) rules.set(id, level);
  for (const [prefix, direction] of Object.entries(SCHEMA_CONTEXTS))
    for (const [suffix, levels] of Object.entries(SCHEMA_RULES)) {
      const headerOverride =
        prefix === 'asyncapi.headers' &&
        (suffix === 'required_property_added' || suffix === 'property_became_required');
      rules.set(`${prefix}.${suffix}`, headerOverride ? 'breaking' : levels[direction]);
    }
  return rules;
}

/** The changes between two versions of one contract (same file name). */
export function diffContract(before: Contract, after: Contract, budget = { left: NODE_BUDGET }): Change[] {
  const changes = new Changes(after.name);
  if (before.format !== after.format) {
    changes.add({
      rule: 'contract.format_changed',
      level: 'breaking',
      place: after.name,
      oldPointer: '',
      newPointer: '',
      message: `${before.format} document became ${after.format}: nothing a client built on it holds`,
    });
    return changes.list();
  }
  const oldDoc = before.document as Json;
  const newDoc = after.document as Json;
  if (!isObject(oldDoc) || !isObject(newDoc)) throw new DiffInputError(`${after.name}: not a JSON object`);
  if (after.format === 'openapi') diffOpenApi(oldDoc, newDoc, changes, budget);
  else if (after.format === 'asyncapi') diffAsyncApi(oldDoc, newDoc, changes, budget);
  else if (after.format === 'openrpc') diffOpenRpc(oldDoc, newDoc, changes, budget);
  else
    compareSchemas(
      { oldDoc, newDoc, changes, prefix: 'jsonschema', direction: 'sent', place: 'document', reader: 'client', budget },
      { node: oldDoc, at: '' },
      { node: newDoc, at: '' },
    );
  return changes.list();
}

/** Every change between two sides, the version and CHANGES.md rules included, most severe first. */
export function diffSides(before: Side, after: Side): Change[] {
  const all: Change[] = [];
  const budget = { left: NODE_BUDGET };
  for (const [name, contract] of before.contracts) {
    const match = after.contracts.get(name);
    if (!match) {
      all.push({
        rule: 'contract.removed',
        level: 'breaking',
        contract: name,
        oldPointer: '',
        places: [name],
        message: `${contract.format} contract ${name} removed: every client built on it loses its counterpart`,
      });
      continue;
    }
    const changes = diffContract(contract, match, budget);
    all.push(...changes, ...versionChanges(contract, match, changes, after.changelog, after.folder && before.folder));
  }
  for (const [name, contract] of after.contracts)
    if (!before.contracts.has(name))
      all.push({
        rule: 'contract.added',
        level: 'info',
        contract: name,
        newPointer: '',
        places: [name],
        message: `${contract.format} contract ${name} added`,
      });
  return all.sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
}

/** True when a change at `threshold` or above is in the list (`--fail-on`). */
export function fails(changes: Change[], threshold: Level): boolean {
  return changes.some((change) => LEVELS.indexOf(change.level) <= LEVELS.indexOf(threshold));
}
