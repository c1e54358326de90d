/**
 * AsyncAPI 3.0 rules (D-247): channels, operations, messages, payloads, headers, event types and the signing
 * and delivery rules the contract states in `x-signature` and `x-delivery`, from the point of view of a
 * webhook receiver built on the old contract.
 */
import { type Changes, isObject, type Json, pointer, text } from './model.ts';
import { derefObject, type Located } from './refs.ts';
import { compareSchemas, type SchemaContext } from './schema.ts';

/** The rules of this file that are not schema rules, with their levels. */
export const ASYNCAPI_RULES = {
  'asyncapi.channel_removed': 'breaking',
  'asyncapi.channel_added': 'info',
  'asyncapi.channel_address_changed': 'breaking',
  'asyncapi.operation_removed': 'breaking',
  'asyncapi.operation_added': 'info',
  'asyncapi.operation_action_changed': 'breaking',
  'asyncapi.message_removed': 'breaking',
  'asyncapi.message_added': 'info',
  'asyncapi.event_type_removed': 'breaking',
  'asyncapi.event_type_added': 'warning',
  'asyncapi.payload_removed': 'breaking',
  'asyncapi.signing_changed': 'breaking',
  'asyncapi.signing_rule_added': 'warning',
  'asyncapi.security_changed': 'breaking',
  'asyncapi.delivery_changed': 'warning',
} as const;

type Rule = keyof typeof ASYNCAPI_RULES;
type Add = (rule: Rule, place: string, message: string, oldPointer?: string, newPointer?: string) => void;

function record(doc: Json, key: string): Json {
  const value = doc[key];
  return isObject(value) ? value : {};
}

/** The event type a message carries: its `x-event`, else its `title`, else its `name`. */
function eventType(message: Json): string | undefined {
  for (const key of ['x-event', 'title', 'name']) if (typeof message[key] === 'string') return message[key] as string;
  return undefined;
}

/** Compares two AsyncAPI documents. */
export function diffAsyncApi(oldDoc: Json, newDoc: Json, changes: Changes, budget: { left: number }): void {
  const add: Add = (rule, place, message, oldPointer, newPointer) =>
    changes.add({ rule, level: ASYNCAPI_RULES[rule], place, message, oldPointer, newPointer });
  const contract = changes.contract;
  const context = (prefix: string, place: string): SchemaContext => ({
    oldDoc,
    newDoc,
    changes,
    prefix,
    direction: 'parsed',
    place,
    reader: 'receiver',
    budget,
  });

  statedRules(
    add,
    oldDoc,
    newDoc,
    'x-signature',
    ['asyncapi.signing_changed', 'asyncapi.signing_rule_added'],
    'a receiver that verifies signatures by the old rule refuses every delivery',
    'a receiver built before it does not apply it',
  );
  statedRules(
    add,
    oldDoc,
    newDoc,
    'x-delivery',
    ['asyncapi.delivery_changed', 'asyncapi.delivery_changed'],
    'a receiver built on the old delivery rule may answer or time out differently',
    'a receiver built before it does not know it',
  );

  const oldChannels = record(oldDoc, 'channels');
  const newChannels = record(newDoc, 'channels');
  const oldEvents = new Map<string, string>();
  const newEvents = new Map<string, string>();
  for (const name of Object.keys(oldChannels)) {
    const at = pointer('', 'channels', name);
    const before = derefObject(oldDoc, { node: oldChannels[name], at }, contract);
    const place = `channel ${name}`;
    for (const [, message] of messages(oldDoc, before, contract)) {
      const type = eventType(message.node);
      if (type) oldEvents.set(type, message.at);
    }
    if (!Object.hasOwn(newChannels, name)) {
      add(
        'asyncapi.channel_removed',
        place,
        `channel ${name} removed: a receiver subscribed to it gets nothing more`,
        at,
      );
      continue;
    }
    const after = derefObject(newDoc, { node: newChannels[name], at }, contract);
    if (before.node.address !== after.node.address)
      add(
        'asyncapi.channel_address_changed',
        place,
        `channel address ${JSON.stringify(before.node.address)} became ${JSON.stringify(after.node.address)}: a receiver listening at the old address gets nothing`,
        pointer(before.at, 'address'),
        pointer(after.at, 'address'),
      );
    const oldMessages = messages(oldDoc, before, contract);
    const newMessages = messages(newDoc, after, contract);
    for (const [key, message] of oldMessages) {
      const messagePlace = `${place} message ${key}`;
      const match = newMessages.get(key);
      if (!match) {
        add(
          'asyncapi.message_removed',
          messagePlace,
          `message ${key} removed from channel ${name}: a receiver that handles it gets nothing more`,
          message.at,
        );
        continue;
      }
      compareMessage(context, messagePlace, message, match, contract, add);
    }
    for (const [key, message] of newMessages)
      if (!oldMessages.has(key))
        add(
          'asyncapi.message_added',
          `${place} message ${key}`,
          `message ${key} added to channel ${name}`,
          undefined,
          message.at,
        );
  }
  for (const name of Object.keys(newChannels)) {
    const at = pointer('', 'channels', name);
    const after = derefObject(newDoc, { node: newChannels[name], at }, contract);
    for (const [, message] of messages(newDoc, after, contract)) {
      const type = eventType(message.node);
      if (type) newEvents.set(type, message.at);
    }
    if (!Object.hasOwn(oldChannels, name))
      add('asyncapi.channel_added', `channel ${name}`, `channel ${name} added`, undefined, at);
  }
  for (const [type, at] of oldEvents)
    if (!newEvents.has(type))
      add(
        'asyncapi.event_type_removed',
        `event ${type}`,
        `event type ${type} removed: a receiver that acts on it never gets it again`,
        at,
      );
  for (const [type, at] of newEvents)
    if (!oldEvents.has(type))
      add(
        'asyncapi.event_type_added',
        `event ${type}`,
        `event type ${type} added: a receiver that refuses unknown events refuses it`,
        undefined,
        at,
      );

  operations(add, oldDoc, newDoc, contract);
}

/** Each channel message, after its $refs, keyed by its name in the channel. */
function messages(
  doc: Json,
  channel: { node: Json; at: string },
  contract: string,
): Map<string, { node: Json; at: string }> {
  const found = new Map<string, { node: Json; at: string }>();
  const list = record(channel.node, 'messages');
  for (const key of Object.keys(list))
    found.set(key, derefObject(doc, { node: list[key], at: pointer(channel.at, 'messages', key) }, contract));
  return found;
}

/**
 * A message's headers schema at `path` (`headers`, or `bindings/http/headers` for the HTTP binding's): its own,
 * else the first of its traits that has one (AsyncAPI trait merge).
 */
function headers(
  doc: Json,
  message: { node: Json; at: string },
  contract: string,
  path: string[],
): Located | undefined {
  const inside = (node: Json): unknown => path.reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), node);
  if (inside(message.node) !== undefined) return { node: inside(message.node), at: pointer(message.at, ...path) };
  if (!Array.isArray(message.node.traits)) return undefined;
  for (const [index, entry] of message.node.traits.entries()) {
    const trait = derefObject(doc, { node: entry, at: pointer(message.at, 'traits', index) }, contract);
    if (inside(trait.node) !== undefined) return { node: inside(trait.node), at: pointer(trait.at, ...path) };
  }
  return undefined;
}

function compareMessage(
  context: (prefix: string, place: string) => SchemaContext,
  place: string,
  before: { node: Json; at: string },
  after: { node: Json; at: string },
  contract: string,
  add: Add,
): void {
  const payload = context('asyncapi.payload', place);
  if (before.node.payload !== undefined && after.node.payload === undefined)
    add(
      'asyncapi.payload_removed',
      place,
      'payload removed: a receiver that parses it gets nothing',
      pointer(before.at, 'payload'),
    );
  else if (before.node.payload !== undefined && after.node.payload !== undefined)
    compareSchemas(
      payload,
      { node: before.node.payload, at: pointer(before.at, 'payload') },
      { node: after.node.payload, at: pointer(after.at, 'payload') },
    );
  // D-247: a new required header carries something a receiver must act on (the signature and its timestamp are
  // headers), so for headers it is breaking, where a new required payload field is not. The HTTP binding's
  // headers (Content-Type) are headers too.
  const headerContext = {
    ...context('asyncapi.headers', place),
    levels: { required_property_added: 'breaking' as const, property_became_required: 'breaking' as const },
  };
  for (const path of [['headers'], ['bindings', 'http', 'headers']]) {
    const oldHeaders = headers(payload.oldDoc as Json, before, contract, path);
    const newHeaders = headers(payload.newDoc as Json, after, contract, path);
    if (!oldHeaders && !newHeaders) continue;
    compareSchemas(
      headerContext,
      oldHeaders ?? { node: {}, at: pointer(before.at, ...path) },
      newHeaders ?? { node: {}, at: pointer(after.at, ...path) },
    );
  }
}

/** Every field of a top-level object the contract states its rules in (`x-signature`, `x-delivery`). */
function statedRules(
  add: Add,
  oldDoc: Json,
  newDoc: Json,
  key: string,
  [changed, added]: [Rule, Rule],
  consequence: string,
  addedConsequence: string,
): void {
  const before = record(oldDoc, key);
  const after = record(newDoc, key);
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (field === 'x-decision' || field === 'description') continue;
    const a = JSON.stringify(before[field]);
    const b = JSON.stringify(after[field]);
    if (a === b) continue;
    if (a === undefined)
      add(added, key, `${key}.${field} ${b} stated: ${addedConsequence}`, undefined, pointer('', key, field));
    else
      add(
        changed,
        key,
        `${key}.${field} ${a} became ${b ?? 'absent'}: ${consequence}`,
        pointer('', key, field),
        b === undefined ? undefined : pointer('', key, field),
      );
  }
}

function securityNames(doc: Json, operation: { node: Json; at: string }, contract: string): string {
  if (!Array.isArray(operation.node.security)) return '';
  return operation.node.security
    .map((entry, index) => {
      const scheme = derefObject(doc, { node: entry, at: pointer(operation.at, 'security', index) }, contract);
      return `${scheme.at} (${[scheme.node.type, scheme.node.in, scheme.node.name]
        .filter((part) => part !== undefined)
        .map(text)
        .join(' ')})`;
    })
    .sort()
    .join(',');
}

function operations(add: Add, oldDoc: Json, newDoc: Json, contract: string): void {
  const before = record(oldDoc, 'operations');
  const after = record(newDoc, 'operations');
  for (const name of Object.keys(before)) {
    const at = pointer('', 'operations', name);
    const place = `operation ${name}`;
    if (!Object.hasOwn(after, name)) {
      add(
        'asyncapi.operation_removed',
        place,
        `operation ${name} removed: a receiver that handles it gets nothing more`,
        at,
      );
      continue;
    }
    const o = derefObject(oldDoc, { node: before[name], at }, contract);
    const n = derefObject(newDoc, { node: after[name], at }, contract);
    if (o.node.action !== n.node.action)
      add(
        'asyncapi.operation_action_changed',
        place,
        `action ${text(o.node.action)} became ${text(n.node.action)}: the direction of the messages is reversed`,
        pointer(o.at, 'action'),
        pointer(n.at, 'action'),
      );
    const oldSecurity = securityNames(oldDoc, o, contract);
    const newSecurity = securityNames(newDoc, n, contract);
    if (oldSecurity !== newSecurity)
      add(
        'asyncapi.security_changed',
        place,
        `security ${oldSecurity || 'none'} became ${newSecurity || 'none'}: a receiver that verifies the old scheme refuses the deliveries`,
        pointer(o.at, 'security'),
        pointer(n.at, 'security'),
      );
  }
  for (const name of Object.keys(after))
    if (!Object.hasOwn(before, name))
      add(
        'asyncapi.operation_added',
        `operation ${name}`,
        `operation ${name} added`,
        undefined,
        pointer('', 'operations', name),
      );
}
