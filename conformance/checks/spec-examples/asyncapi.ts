// Collects every message example of an AsyncAPI 3.0 document: `examples[] {headers, payload}` of
// each message in components.messages and inline in channels, against the message's `payload`
// and `headers` after its traits are applied.
import { deref, formatPointer, getAt, isObject, type Segment } from './pointer.ts';
import type { ExampleCase } from './validator.ts';

// Schema formats whose schemas ajv validates as JSON Schema (AsyncAPI 3.0 Multi Format Schema Object).
const JSON_SCHEMA_FORMATS = [
  /^application\/vnd\.aai\.asyncapi(\+json|\+yaml)?;version=3\.\d+\.\d+$/,
  /^application\/schema(\+json|\+yaml)?;version=draft-07$/,
];

/** Every message example in an AsyncAPI 3.0 document, paired with its payload or headers schema. */
export function collectAsyncApiExamples(doc: Record<string, unknown>): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const visit = (at: Segment[]) => {
    const message = getObject(doc, at);
    // A "$ref" message is collected where it is defined.
    if (message && typeof message.$ref !== 'string') cases.push(...messageExamples(doc, message, at));
  };
  const components = getObject(doc, ['components']);
  if (components && isObject(components.messages)) {
    for (const name of Object.keys(components.messages)) visit(['components', 'messages', name]);
  }
  const channels = getObject(doc, ['channels']);
  for (const channel of Object.keys(channels ?? {})) {
    const messages = getObject(doc, ['channels', channel, 'messages']);
    for (const name of Object.keys(messages ?? {})) visit(['channels', channel, 'messages', name]);
  }
  return cases;
}

function getObject(doc: unknown, at: Segment[]): Record<string, unknown> | undefined {
  const node = getAt(doc, at);
  return isObject(node) ? node : undefined;
}

/** A message's traits, resolved, in order. */
function traitsOf(doc: Record<string, unknown>, message: Record<string, unknown>, at: Segment[]) {
  const traits = Array.isArray(message.traits) ? message.traits : [];
  return traits.map((_t, i) => deref(doc, [...at, 'traits', i]));
}

function messageExamples(doc: Record<string, unknown>, message: Record<string, unknown>, at: Segment[]): ExampleCase[] {
  let traits: { node: unknown; at: Segment[] }[];
  try {
    traits = traitsOf(doc, message, at);
  } catch (err) {
    return [{ where: formatPointer(at), problem: (err as Error).message }];
  }
  // AsyncAPI 3.0, traits merge mechanism: "A property on a trait MUST NOT override the same property
  // on the target object", so message fields win and a trait only fills what is missing.
  const examplesOwner = Array.isArray(message.examples)
    ? at
    : traits.find((t) => isObject(t.node) && Array.isArray(t.node.examples))?.at;
  if (!examplesOwner) return [];
  const examples = getObject(doc, examplesOwner)?.examples as unknown[];
  const cases: ExampleCase[] = [];
  examples.forEach((example, i) => {
    const exAt = [...examplesOwner, 'examples', i];
    if (!isObject(example)) {
      cases.push({ where: formatPointer(exAt), problem: 'message example is not an object' });
      return;
    }
    for (const field of ['payload', 'headers'] as const) {
      if (!(field in example)) continue;
      const c: ExampleCase = { where: formatPointer([...exAt, field]), value: example[field] };
      try {
        Object.assign(c, schemaFor(doc, message, at, traits, field));
      } catch (err) {
        c.problem = (err as Error).message;
      }
      cases.push(c);
    }
  });
  return cases;
}

/** The schema of `payload` or `headers` after traits, as a pointer when possible, else a merged node. */
function schemaFor(
  doc: Record<string, unknown>,
  message: Record<string, unknown>,
  at: Segment[],
  traits: { node: unknown; at: Segment[] }[],
  field: 'payload' | 'headers',
): Pick<ExampleCase, 'schemaAt' | 'schemaNode' | 'problem'> {
  const sources: Segment[][] = [];
  if (field in message) sources.push([...at, field]);
  for (const t of traits) if (isObject(t.node) && field in t.node) sources.push([...t.at, field]);
  if (sources.length === 0) return { problem: `the message defines no ${field} schema` };
  if (sources.length === 1) return unwrapMultiFormat(doc, sources[0] as Segment[]);
  let merged: unknown;
  for (const source of sources) merged = mergeTrait(merged, getAt(doc, source));
  if (!isObject(merged)) return { problem: `the merged ${field} schema is not an object` };
  if ('schemaFormat' in merged) return { problem: `merging traits into a Multi Format Schema Object is not supported` };
  return { schemaNode: merged };
}

/** Points at the inner `schema` of a Multi Format Schema Object whose format is JSON Schema. */
function unwrapMultiFormat(doc: Record<string, unknown>, at: Segment[]): Pick<ExampleCase, 'schemaAt' | 'problem'> {
  const { node, at: resolved } = deref(doc, at);
  if (!isObject(node) || !('schemaFormat' in node) || !('schema' in node)) return { schemaAt: at };
  const format = String(node.schemaFormat).replace(/\s+/g, '');
  if (!JSON_SCHEMA_FORMATS.some((re) => re.test(format))) {
    return {
      problem: `schemaFormat ${JSON.stringify(node.schemaFormat)} is not a JSON Schema format this check validates`,
    };
  }
  return { schemaAt: [...resolved, 'schema'] };
}

/** JSON-merge of a trait value into a target where the target's existing values always win. */
export function mergeTrait(target: unknown, trait: unknown): unknown {
  if (target === undefined) return structuredClone(trait);
  if (!isObject(target) || !isObject(trait)) return target;
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(trait)) out[key] = mergeTrait(out[key], value);
  return out;
}
