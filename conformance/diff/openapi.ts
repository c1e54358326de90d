/**
 * OpenAPI 3.1 rules (D-247): operations, parameters, bodies, responses, security and servers, from the point of
 * view of a client generated from the old contract.
 */
import { type Changes, isObject, type Json, pointer, text } from './model.ts';
import { derefObject, type Located } from './refs.ts';
import { compareSchemas, type Direction, type SchemaContext } from './schema.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The rules of this file that are not schema rules, with their levels. */
export const OPENAPI_RULES = {
  'openapi.path_removed': 'breaking',
  'openapi.operation_removed': 'breaking',
  'openapi.operation_added': 'info',
  'openapi.operation_deprecated': 'warning',
  'openapi.request_parameter_removed': 'warning',
  'openapi.required_request_parameter_added': 'breaking',
  'openapi.request_parameter_added': 'info',
  'openapi.request_parameter_became_required': 'breaking',
  'openapi.request_parameter_became_optional': 'info',
  'openapi.required_request_body_added': 'breaking',
  'openapi.request_body_became_required': 'breaking',
  'openapi.request_body_removed': 'warning',
  'openapi.request_media_type_removed': 'breaking',
  'openapi.response_status_removed': 'breaking',
  'openapi.response_status_added': 'info',
  'openapi.response_media_type_removed': 'breaking',
  'openapi.security_requirement_added': 'breaking',
  'openapi.security_alternative_removed': 'breaking',
  'openapi.security_alternative_added': 'info',
  'openapi.server_base_path_changed': 'breaking',
  'openapi.server_added': 'info',
} as const;

type Rule = keyof typeof OPENAPI_RULES;

type Side = { doc: Json; paths: Json };

/** Compares two OpenAPI documents. */
export function diffOpenApi(oldDoc: Json, newDoc: Json, changes: Changes, budget: { left: number }): void {
  const add = (rule: Rule, place: string, message: string, oldPointer?: string, newPointer?: string) =>
    changes.add({ rule, level: OPENAPI_RULES[rule], place, message, oldPointer, newPointer });
  const before: Side = { doc: oldDoc, paths: isObject(oldDoc.paths) ? oldDoc.paths : {} };
  const after: Side = { doc: newDoc, paths: isObject(newDoc.paths) ? newDoc.paths : {} };
  const schemas = (prefix: string, direction: Direction, place: string): SchemaContext => ({
    oldDoc,
    newDoc,
    changes,
    prefix,
    direction,
    place,
    reader: 'client',
    budget,
  });

  servers(oldDoc, newDoc, add);
  for (const path of Object.keys(before.paths)) {
    const at = pointer('', 'paths', path);
    if (!Object.hasOwn(after.paths, path)) {
      add('openapi.path_removed', path, `path ${path} removed: every client call to it fails`, at);
      continue;
    }
    const oldItem = derefObject(oldDoc, { node: before.paths[path], at }, changes.contract);
    const newItem = derefObject(newDoc, { node: after.paths[path], at }, changes.contract);
    for (const method of METHODS) {
      const place = `${method.toUpperCase()} ${path}`;
      const oldOp = oldItem.node[method];
      const newOp = newItem.node[method];
      const oldAt = pointer(oldItem.at, method);
      const newAt = pointer(newItem.at, method);
      if (isObject(oldOp) && !isObject(newOp))
        add('openapi.operation_removed', place, `${place} removed: every client call to it fails`, oldAt);
      else if (!isObject(oldOp) && isObject(newOp))
        add('openapi.operation_added', place, `${place} added: no existing client calls it`, undefined, newAt);
      if (!isObject(oldOp) || !isObject(newOp)) continue;
      if (oldOp.deprecated !== true && newOp.deprecated === true)
        add(
          'openapi.operation_deprecated',
          place,
          `${place} deprecated: clients should move off it before it is removed`,
          oldAt,
          newAt,
        );
      const request = schemas('openapi.request', 'sent', place);
      parameters(
        changes,
        request,
        add,
        { item: oldItem, op: oldOp, at: oldAt },
        { item: newItem, op: newOp, at: newAt },
      );
      requestBody(
        changes,
        request,
        add,
        { node: oldOp.requestBody, at: pointer(oldAt, 'requestBody') },
        { node: newOp.requestBody, at: pointer(newAt, 'requestBody') },
      );
      responses(
        changes,
        schemas('openapi.response', 'parsed', place),
        add,
        { node: oldOp.responses, at: pointer(oldAt, 'responses') },
        { node: newOp.responses, at: pointer(newAt, 'responses') },
      );
      // An operation without its own `security` has the document's: the pointer names the one that applies.
      security(
        add,
        place,
        oldOp.security ?? oldDoc.security,
        newOp.security ?? newDoc.security,
        oldOp.security === undefined ? '' : oldAt,
        newOp.security === undefined ? '' : newAt,
      );
    }
  }
  for (const path of Object.keys(after.paths)) {
    if (Object.hasOwn(before.paths, path)) continue;
    const item = derefObject(newDoc, { node: after.paths[path], at: pointer('', 'paths', path) }, changes.contract);
    for (const method of METHODS)
      if (isObject(item.node[method]))
        add(
          'openapi.operation_added',
          `${method.toUpperCase()} ${path}`,
          `${method.toUpperCase()} ${path} added: no existing client calls it`,
          undefined,
          pointer(item.at, method),
        );
  }
}

type Add = (rule: Rule, place: string, message: string, oldPointer?: string, newPointer?: string) => void;

/** The path of each server URL, which clients put before every path (`https://{host}/wallet/api/v1` → `/wallet/api/v1`). */
function serverPaths(doc: Json): Map<string, string> {
  const found = new Map<string, string>();
  if (Array.isArray(doc.servers))
    doc.servers.forEach((server, index) => {
      if (!isObject(server) || typeof server.url !== 'string') return;
      const path = server.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/\/+$/, '') || '/';
      if (!found.has(path)) found.set(path, pointer('', 'servers', index, 'url'));
    });
  return found;
}

function servers(oldDoc: Json, newDoc: Json, add: Add): void {
  const before = serverPaths(oldDoc);
  const after = serverPaths(newDoc);
  if (before.size === 0 || after.size === 0) return;
  for (const [path, at] of before)
    if (!after.has(path))
      add(
        'openapi.server_base_path_changed',
        'servers',
        `server base path ${path} is now ${[...after.keys()].join(', ')}: every client call under the old base path fails`,
        at,
        after.values().next().value,
      );
  for (const [path, at] of after)
    if (!before.has(path)) add('openapi.server_added', 'servers', `server base path ${path} added`, undefined, at);
}

type Operation = { item: { node: Json; at: string }; op: Json; at: string };

/** Path-level and operation-level parameters, keyed by `in` and name (the operation's win). */
function parameterMap(doc: unknown, side: Operation, contract: string): Map<string, { node: Json; at: string }> {
  const map = new Map<string, { node: Json; at: string }>();
  for (const [list, at] of [
    [side.item.node.parameters, pointer(side.item.at, 'parameters')],
    [side.op.parameters, pointer(side.at, 'parameters')],
  ] as const) {
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      const found = derefObject(doc, { node: entry, at: pointer(at, index) }, contract);
      map.set(`${text(found.node.in)} ${text(found.node.name)}`, found);
    });
  }
  return map;
}

function parameters(changes: Changes, context: SchemaContext, add: Add, before: Operation, after: Operation): void {
  const place = context.place;
  const had = parameterMap(context.oldDoc, before, changes.contract);
  const has = parameterMap(context.newDoc, after, changes.contract);
  for (const [key, oldParam] of had) {
    const newParam = has.get(key);
    if (!newParam) {
      add(
        'openapi.request_parameter_removed',
        place,
        `${key} parameter removed: a client that still sends it may be refused or ignored`,
        oldParam.at,
      );
      continue;
    }
    const wasRequired = oldParam.node.required === true;
    const isRequired = newParam.node.required === true;
    if (!wasRequired && isRequired)
      add(
        'openapi.request_parameter_became_required',
        place,
        `${key} parameter became required: a client that leaves it out is refused`,
        oldParam.at,
        newParam.at,
      );
    if (wasRequired && !isRequired)
      add(
        'openapi.request_parameter_became_optional',
        place,
        `${key} parameter became optional`,
        oldParam.at,
        newParam.at,
      );
    if (oldParam.node.schema !== undefined && newParam.node.schema !== undefined)
      compareSchemas(
        context,
        { node: oldParam.node.schema, at: pointer(oldParam.at, 'schema') },
        { node: newParam.node.schema, at: pointer(newParam.at, 'schema') },
      );
  }
  for (const [key, newParam] of has) {
    if (had.has(key)) continue;
    if (newParam.node.required === true)
      add(
        'openapi.required_request_parameter_added',
        place,
        `required ${key} parameter added: every existing client call lacks it and is refused`,
        undefined,
        newParam.at,
      );
    else add('openapi.request_parameter_added', place, `optional ${key} parameter added`, undefined, newParam.at);
  }
}

function content(node: Json): Json {
  return isObject(node.content) ? node.content : {};
}

function requestBody(changes: Changes, context: SchemaContext, add: Add, oldAt: Located, newAt: Located): void {
  const place = context.place;
  const had = oldAt.node !== undefined;
  const has = newAt.node !== undefined;
  if (!had && !has) return;
  const before = derefObject(context.oldDoc, oldAt, changes.contract);
  const after = derefObject(context.newDoc, newAt, changes.contract);
  if (had && !has) {
    add(
      'openapi.request_body_removed',
      place,
      'request body removed: a client that still sends one may be refused',
      before.at,
    );
    return;
  }
  if (!had && has) {
    if (after.node.required === true)
      add(
        'openapi.required_request_body_added',
        place,
        'required request body added: every existing client call lacks it and is refused',
        undefined,
        after.at,
      );
    return;
  }
  if (before.node.required !== true && after.node.required === true)
    add(
      'openapi.request_body_became_required',
      place,
      'request body became required: a client that sends none is refused',
      before.at,
      after.at,
    );
  const oldContent = content(before.node);
  const newContent = content(after.node);
  for (const media of Object.keys(oldContent)) {
    const mediaAt = pointer(before.at, 'content', media);
    if (!Object.hasOwn(newContent, media)) {
      add(
        'openapi.request_media_type_removed',
        place,
        `request media type ${media} removed: a client that sends it is refused`,
        mediaAt,
      );
      continue;
    }
    const o = oldContent[media];
    const n = newContent[media];
    if (isObject(o) && isObject(n) && o.schema !== undefined && n.schema !== undefined)
      compareSchemas(
        context,
        { node: o.schema, at: pointer(mediaAt, 'schema') },
        { node: n.schema, at: pointer(after.at, 'content', media, 'schema') },
      );
  }
}

function responses(changes: Changes, context: SchemaContext, add: Add, oldAt: Located, newAt: Located): void {
  const place = context.place;
  const before = isObject(oldAt.node) ? oldAt.node : {};
  const after = isObject(newAt.node) ? newAt.node : {};
  for (const status of Object.keys(before)) {
    const statusAt = pointer(oldAt.at, status);
    if (!Object.hasOwn(after, status)) {
      add(
        'openapi.response_status_removed',
        place,
        `response ${status} removed from the documented set: a client that handles it no longer knows what it means`,
        statusAt,
      );
      continue;
    }
    const oldResponse = derefObject(context.oldDoc, { node: before[status], at: statusAt }, changes.contract);
    const newResponse = derefObject(
      context.newDoc,
      { node: after[status], at: pointer(newAt.at, status) },
      changes.contract,
    );
    const oldContent = content(oldResponse.node);
    const newContent = content(newResponse.node);
    for (const media of Object.keys(oldContent)) {
      const mediaAt = pointer(oldResponse.at, 'content', media);
      if (!Object.hasOwn(newContent, media)) {
        add(
          'openapi.response_media_type_removed',
          place,
          `response ${status} media type ${media} removed: a client that parses it gets another`,
          mediaAt,
        );
        continue;
      }
      const o = oldContent[media];
      const n = newContent[media];
      if (isObject(o) && isObject(n) && o.schema !== undefined && n.schema !== undefined)
        compareSchemas(
          { ...context, place: `${place} ${status}` },
          { node: o.schema, at: pointer(mediaAt, 'schema') },
          { node: n.schema, at: pointer(newResponse.at, 'content', media, 'schema') },
        );
    }
  }
  for (const status of Object.keys(after))
    if (!Object.hasOwn(before, status))
      add(
        'openapi.response_status_added',
        place,
        `response ${status} added to the documented set`,
        undefined,
        pointer(newAt.at, status),
      );
}

/** Each security alternative as the sorted names of its schemes (`''`: no credential needed). */
function alternatives(requirements: unknown): Set<string> {
  if (!Array.isArray(requirements)) return new Set(['']);
  if (requirements.length === 0) return new Set(['']);
  return new Set(requirements.map((entry) => (isObject(entry) ? Object.keys(entry).sort().join('+') : '')));
}

function security(
  add: Add,
  place: string,
  oldRequirements: unknown,
  newRequirements: unknown,
  oldAt: string,
  newAt: string,
): void {
  const before = alternatives(oldRequirements);
  const after = alternatives(newRequirements);
  for (const alternative of before) {
    if (after.has(alternative)) continue;
    const names = new Set(alternative.split('+').filter(Boolean));
    const stricter = [...after].some((other) => [...names].every((name) => other.split('+').includes(name)));
    const shown = alternative === '' ? 'no credential' : alternative;
    if (stricter)
      add(
        'openapi.security_requirement_added',
        place,
        `a client that authenticated with ${shown} now needs ${[...after].join(' or ')}: its calls are refused`,
        pointer(oldAt, 'security'),
        pointer(newAt, 'security'),
      );
    else
      add(
        'openapi.security_alternative_removed',
        place,
        `security alternative ${shown} removed: a client that authenticated with it is refused`,
        pointer(oldAt, 'security'),
        pointer(newAt, 'security'),
      );
  }
  const removed = [...before].filter((alternative) => !after.has(alternative));
  for (const alternative of after) {
    if (before.has(alternative)) continue;
    // A removed alternative with schemes added to it is reported once, as a requirement added.
    const names = alternative.split('+');
    if (
      removed.some((old) =>
        old
          .split('+')
          .filter(Boolean)
          .every((name) => names.includes(name)),
      )
    )
      continue;
    add(
      'openapi.security_alternative_added',
      place,
      `security alternative ${alternative || 'no credential'} added`,
      pointer(oldAt, 'security'),
      pointer(newAt, 'security'),
    );
  }
}
