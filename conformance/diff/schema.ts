/**
 * Compares two JSON Schemas in one direction (D-247). Data a client sends (a request body or parameter, a
 * JSON-RPC param, a document validated by a JSON Schema) breaks when the schema narrows: what was valid before
 * is refused. Data a client or a webhook receiver parses (a response, a result, a payload) breaks when the schema
 * widens or loses a field: the reader meets what it did not expect, or misses what it relied on.
 */
import { type Changes, isObject, type Json, type Level, pointer, text } from './model.ts';
import { DiffInputError, deref, type Located } from './refs.ts';

/** `sent`: data the reader of the contract sends; `parsed`: data it parses. */
export type Direction = 'sent' | 'parsed';

/** Each schema rule's level when the data is sent (`sent`) and when it is parsed (`parsed`). */
export const SCHEMA_RULES = {
  type_narrowed: { sent: 'breaking', parsed: 'info', text: 'the type is narrowed' },
  type_widened: { sent: 'info', parsed: 'breaking', text: 'the type is widened' },
  format_added: { sent: 'breaking', parsed: 'info', text: 'a format is added' },
  format_changed: { sent: 'breaking', parsed: 'breaking', text: 'the format is changed' },
  format_removed: { sent: 'info', parsed: 'warning', text: 'the format is removed' },
  pattern_added: { sent: 'breaking', parsed: 'info', text: 'a pattern is added' },
  // Whether one regular expression accepts all another does cannot be decided here, so a changed pattern is a
  // warning in both directions (D-247).
  pattern_changed: { sent: 'warning', parsed: 'warning', text: 'the pattern is changed' },
  pattern_removed: { sent: 'info', parsed: 'warning', text: 'the pattern is removed' },
  bound_tightened: { sent: 'breaking', parsed: 'info', text: 'a bound is tightened' },
  bound_relaxed: { sent: 'info', parsed: 'warning', text: 'a bound is relaxed' },
  enum_value_removed: { sent: 'breaking', parsed: 'info', text: 'an enum value is removed' },
  enum_value_added: { sent: 'info', parsed: 'warning', text: 'an enum value is added' },
  enum_added: { sent: 'breaking', parsed: 'info', text: 'the values are limited to an enum' },
  enum_dropped: { sent: 'info', parsed: 'warning', text: 'the enum limit is removed' },
  property_removed: { sent: 'warning', parsed: 'breaking', text: 'a property is removed' },
  property_added: { sent: 'info', parsed: 'info', text: 'an optional property is added' },
  required_property_added: { sent: 'breaking', parsed: 'info', text: 'a required property is added' },
  property_became_required: { sent: 'breaking', parsed: 'info', text: 'a property becomes required' },
  property_became_optional: { sent: 'info', parsed: 'breaking', text: 'a property is no longer required' },
  additional_properties_closed: { sent: 'breaking', parsed: 'info', text: 'additional properties are closed' },
  additional_properties_opened: { sent: 'info', parsed: 'info', text: 'additional properties are allowed' },
  variant_removed: { sent: 'breaking', parsed: 'info', text: 'a oneOf/anyOf variant is removed' },
  variant_added: { sent: 'info', parsed: 'warning', text: 'a oneOf/anyOf variant is added' },
} as const satisfies Record<string, { sent: Level; parsed: Level; text: string }>;

/** A schema rule's suffix. */
export type SchemaRule = keyof typeof SCHEMA_RULES;

/** Where a comparison runs: the documents, the rule prefix, the direction and the place that uses the schema. */
export type SchemaContext = {
  oldDoc: unknown;
  newDoc: unknown;
  changes: Changes;
  /** Rule id prefix, e.g. `openapi.request`. */
  prefix: string;
  direction: Direction;
  /** The operation, message or method that reaches the schema. */
  place: string;
  /** Who reads the explanation: a client, or a webhook receiver. */
  reader: 'client' | 'receiver';
  /** Nodes compared so far in this diff, shared by every comparison (bounded). */
  budget: { left: number };
  /** Levels that differ from the table for this context (webhook headers, D-247). */
  levels?: Partial<Record<SchemaRule, Level>>;
};

/** How deep a schema may nest before the comparison refuses it. */
const MAX_DEPTH = 64;
/** How many schema nodes one diff compares at most. */
export const NODE_BUDGET = 500_000;

const UPPER = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;

/** A schema after its $refs and allOf members: its own keywords plus the properties and required names of all. */
type View = {
  node: Json;
  at: string;
  properties: Map<string, Located>;
  required: Set<string>;
  closed: boolean;
};

function view(document: unknown, located: Located, contract: string): View {
  const found = deref(document, located, contract);
  const node: Json = found.node === false ? { not: {} } : isObject(found.node) ? found.node : {};
  const result: View = { node, at: found.at, properties: new Map(), required: new Set(), closed: false };
  const merge = (part: Json, at: string, depth: number): void => {
    if (isObject(part.properties))
      for (const name of Object.keys(part.properties))
        result.properties.set(name, { node: part.properties[name], at: pointer(at, 'properties', name) });
    if (Array.isArray(part.required)) for (const name of part.required) result.required.add(text(name));
    if (part.additionalProperties === false || part.unevaluatedProperties === false) result.closed = true;
    if (Array.isArray(part.allOf) && depth < MAX_DEPTH)
      part.allOf.forEach((member, index) => {
        const inner = deref(document, { node: member, at: pointer(at, 'allOf', index) }, contract);
        if (isObject(inner.node)) merge(inner.node, inner.at, depth + 1);
      });
  };
  merge(node, found.at, 0);
  return result;
}

/** The types a schema allows (undefined: any), with `integer` inside `number`. */
function types(node: Json): Set<string> | undefined {
  const declared = node.type;
  if (declared === undefined) return undefined;
  const found = new Set((Array.isArray(declared) ? declared : [declared]).map(text));
  // OpenAPI 3.0 says null with `nullable: true`; 3.1 and JSON Schema put "null" in `type`.
  if (node.nullable === true) found.add('null');
  return found;
}

function covers(set: Set<string> | undefined, type: string): boolean {
  return set === undefined || set.has(type) || (type === 'integer' && set.has('number'));
}

function enumOf(node: Json): unknown[] | undefined {
  if (Array.isArray(node.enum)) return node.enum;
  if ('const' in node) return [node.const];
  return undefined;
}

function show(value: unknown): string {
  return value === undefined ? 'any' : JSON.stringify(value);
}

const CONSEQUENCE: Record<Direction, Record<Level, Record<'client' | 'receiver', string>>> = {
  sent: {
    breaking: {
      client: 'a client that sends what was valid before is refused',
      receiver: 'a sender that sends what was valid before is refused',
    },
    warning: {
      client: 'a client that still sends it may be refused',
      receiver: 'a sender that still sends it may be refused',
    },
    info: { client: 'what clients sent before stays valid', receiver: 'what was sent before stays valid' },
  },
  parsed: {
    breaking: {
      client: 'a client that parses it meets data it did not expect or misses data it relied on',
      receiver: 'a receiver that parses it meets data it did not expect or misses data it relied on',
    },
    warning: {
      client: 'a client that parses it strictly may meet a value it does not handle',
      receiver: 'a receiver that parses it strictly may meet a value it does not handle',
    },
    info: { client: 'what clients parsed before still parses', receiver: 'what receivers parsed before still parses' },
  },
};

/** Compares the schema at `oldAt` with the one at `newAt`, recording each change under `context.prefix`. */
export function compareSchemas(context: SchemaContext, oldAt: Located, newAt: Located): void {
  walk(context, oldAt, newAt, 0, new Set());
}

function emit(context: SchemaContext, rule: SchemaRule, oldPointer: string, newPointer: string, detail: string): void {
  const level = context.levels?.[rule] ?? SCHEMA_RULES[rule][context.direction];
  context.changes.add({
    rule: `${context.prefix}.${rule}`,
    level,
    oldPointer,
    newPointer,
    place: context.place,
    message: `${detail}: ${CONSEQUENCE[context.direction][level][context.reader]}`,
  });
}

function walk(context: SchemaContext, oldAt: Located, newAt: Located, depth: number, stack: Set<string>): void {
  if (--context.budget.left < 0)
    throw new DiffInputError(`${context.changes.contract}: more than ${NODE_BUDGET} schema nodes to compare`);
  if (depth > MAX_DEPTH)
    throw new DiffInputError(`${context.changes.contract}: a schema nests deeper than ${MAX_DEPTH} at ${newAt.at}`);
  const contract = context.changes.contract;
  const before = view(context.oldDoc, oldAt, contract);
  const after = view(context.newDoc, newAt, contract);
  const key = `${before.at}|${after.at}`;
  if (stack.has(key)) return; // a recursive schema: this pair is being compared further up
  stack.add(key);
  const o = before.node;
  const n = after.node;
  const op = before.at;
  const np = after.at;

  const oldTypes = types(o);
  const newTypes = types(n);
  const lost =
    oldTypes === undefined
      ? newTypes === undefined
        ? []
        : ['any']
      : [...oldTypes].filter((t) => !covers(newTypes, t));
  const gained =
    newTypes === undefined
      ? oldTypes === undefined
        ? []
        : ['any']
      : [...newTypes].filter((t) => !covers(oldTypes, t));
  const typeNames = (set: Set<string> | undefined) => (set ? [...set].join(' or ') : 'any');
  const typeText = `type ${typeNames(oldTypes)} became ${typeNames(newTypes)}`;
  if (lost.length > 0) emit(context, 'type_narrowed', op, np, typeText);
  if (gained.length > 0) emit(context, 'type_widened', op, np, typeText);

  if (o.format !== n.format) {
    if (n.format === undefined) emit(context, 'format_removed', op, np, `format ${show(o.format)} removed`);
    else if (o.format === undefined) emit(context, 'format_added', op, np, `format ${show(n.format)} added`);
    else emit(context, 'format_changed', op, np, `format ${show(o.format)} became ${show(n.format)}`);
  }
  // An empty pattern matches every string: it is no pattern.
  const oldPattern = o.pattern === '' ? undefined : o.pattern;
  const newPattern = n.pattern === '' ? undefined : n.pattern;
  if (oldPattern !== newPattern) {
    if (newPattern === undefined) emit(context, 'pattern_removed', op, np, `pattern ${show(oldPattern)} removed`);
    else if (oldPattern === undefined) emit(context, 'pattern_added', op, np, `pattern ${show(newPattern)} added`);
    else emit(context, 'pattern_changed', op, np, `pattern ${show(oldPattern)} became ${show(newPattern)}`);
  }
  for (const [keywords, tighter] of [
    [UPPER, (a: number, b: number) => b < a],
    [LOWER, (a: number, b: number) => b > a],
  ] as const) {
    for (const keyword of keywords) {
      const a = typeof o[keyword] === 'number' ? (o[keyword] as number) : undefined;
      const b = typeof n[keyword] === 'number' ? (n[keyword] as number) : undefined;
      if (a === b) continue;
      const text = `${keyword} ${a ?? 'absent'} became ${b ?? 'absent'}`;
      if (b !== undefined && (a === undefined || tighter(a, b))) emit(context, 'bound_tightened', op, np, text);
      else emit(context, 'bound_relaxed', op, np, text);
    }
  }

  const oldEnum = enumOf(o);
  const newEnum = enumOf(n);
  if (oldEnum && newEnum) {
    const had = new Set(oldEnum.map((v) => JSON.stringify(v)));
    const has = new Set(newEnum.map((v) => JSON.stringify(v)));
    for (const value of had)
      if (!has.has(value)) emit(context, 'enum_value_removed', op, np, `enum value ${value} removed`);
    for (const value of has)
      if (!had.has(value)) emit(context, 'enum_value_added', op, np, `enum value ${value} added`);
  } else if (newEnum) emit(context, 'enum_added', op, np, `values limited to ${show(newEnum)}`);
  else if (oldEnum) emit(context, 'enum_dropped', op, np, `enum ${show(oldEnum)} removed`);

  for (const [name, oldProperty] of before.properties) {
    const newProperty = after.properties.get(name);
    if (!newProperty) {
      emit(context, 'property_removed', oldProperty.at, np, `property "${name}" removed`);
      continue;
    }
    const wasRequired = before.required.has(name);
    const isRequired = after.required.has(name);
    if (!wasRequired && isRequired)
      emit(context, 'property_became_required', oldProperty.at, newProperty.at, `property "${name}" became required`);
    if (wasRequired && !isRequired)
      emit(
        context,
        'property_became_optional',
        oldProperty.at,
        newProperty.at,
        `property "${name}" is no longer required`,
      );
    walk(context, oldProperty, newProperty, depth + 1, stack);
  }
  for (const [name, newProperty] of after.properties) {
    if (before.properties.has(name)) continue;
    if (after.required.has(name))
      emit(context, 'required_property_added', op, newProperty.at, `required property "${name}" added`);
    else emit(context, 'property_added', op, newProperty.at, `optional property "${name}" added`);
  }
  for (const name of after.required)
    if (!after.properties.has(name) && !before.required.has(name) && !before.properties.has(name))
      emit(context, 'required_property_added', op, np, `property "${name}" added to required`);

  if (!before.closed && after.closed)
    emit(context, 'additional_properties_closed', op, np, 'additionalProperties closed');
  if (before.closed && !after.closed)
    emit(context, 'additional_properties_opened', op, np, 'additionalProperties opened');
  if (isObject(o.additionalProperties) && isObject(n.additionalProperties))
    walk(
      context,
      { node: o.additionalProperties, at: pointer(op, 'additionalProperties') },
      { node: n.additionalProperties, at: pointer(np, 'additionalProperties') },
      depth + 1,
      stack,
    );

  if (o.items !== undefined && n.items !== undefined && !Array.isArray(o.items) && !Array.isArray(n.items))
    walk(
      context,
      { node: o.items, at: pointer(op, 'items') },
      { node: n.items, at: pointer(np, 'items') },
      depth + 1,
      stack,
    );

  variants(context, before, after, depth, stack);
  stack.delete(key);
}

/**
 * oneOf and anyOf members are the variants a value may take (oneOf turned anyOf accepts at least as much).
 * Members are matched by their $ref, then the rest by position; what is left was removed or added.
 */
function variants(context: SchemaContext, before: View, after: View, depth: number, stack: Set<string>): void {
  const list = (view: View): { key: string; at: Located }[] => {
    const found: { key: string; at: Located }[] = [];
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const members = view.node[keyword];
      if (Array.isArray(members))
        members.forEach((member, index) => {
          const key = isObject(member) && typeof member.$ref === 'string' ? member.$ref : `${keyword}[${index}]`;
          found.push({ key, at: { node: member, at: pointer(view.at, keyword, index) } });
        });
    }
    return found;
  };
  const had = list(before);
  const has = list(after);
  if (had.length === 0 || has.length === 0) return;
  const unmatchedNew = has.filter((member) => !had.some((old) => old.key === member.key));
  const unmatchedOld: typeof had = [];
  for (const member of had) {
    const match = has.find((other) => other.key === member.key);
    if (match) walk(context, member.at, match.at, depth + 1, stack);
    else unmatchedOld.push(member);
  }
  const paired = Math.min(unmatchedOld.length, unmatchedNew.length);
  for (let index = 0; index < paired; index++)
    walk(
      context,
      (unmatchedOld[index] as (typeof had)[number]).at,
      (unmatchedNew[index] as (typeof had)[number]).at,
      depth + 1,
      stack,
    );
  for (const member of unmatchedOld.slice(paired))
    emit(context, 'variant_removed', member.at.at, after.at, `variant ${member.key} removed`);
  for (const member of unmatchedNew.slice(paired))
    emit(context, 'variant_added', before.at, member.at.at, `variant ${member.key} added`);
}
