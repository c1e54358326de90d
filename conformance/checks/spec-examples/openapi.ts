// Collects every example of an OpenAPI 3.1 document with the schema it must satisfy: media-type
// `example` and `examples: {name: {value}}`, parameter and header `example`/`examples`, and the
// `examples`/`example` of component schemas. Elements given by "$ref" are collected once, where
// they are defined in components, so nothing is counted twice.
import { deref, formatPointer, getAt, isObject, type Segment } from './pointer.ts';
import type { ExampleCase } from './validator.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every example in an OpenAPI 3.1 document, paired with its schema. */
export function collectOpenApiExamples(doc: Record<string, unknown>): ExampleCase[] {
  const c = new Collector(doc);
  for (const group of ['paths', 'webhooks'] as const) {
    const items = doc[group];
    if (!isObject(items)) continue;
    for (const key of Object.keys(items)) c.pathItem([group, key]);
  }
  const components = isObject(doc.components) ? doc.components : {};
  const each = (name: string, visit: (at: Segment[]) => void) => {
    const map = components[name];
    if (isObject(map)) for (const key of Object.keys(map)) visit(['components', name, key]);
  };
  each('schemas', (at) => c.schema(at));
  each('parameters', (at) => c.parameter(at));
  each('headers', (at) => c.parameter(at));
  each('requestBodies', (at) => c.content(at));
  each('responses', (at) => c.response(at));
  each('pathItems', (at) => c.pathItem(at));
  return c.cases;
}

class Collector {
  readonly cases: ExampleCase[] = [];
  readonly #doc: Record<string, unknown>;

  constructor(doc: Record<string, unknown>) {
    this.#doc = doc;
  }

  #node(at: Segment[]): Record<string, unknown> | undefined {
    const node = this.#get(at);
    // A "$ref" element is collected where it is defined (components), not where it is used.
    return isObject(node) && typeof node.$ref !== 'string' ? node : undefined;
  }

  #get(at: Segment[]): unknown {
    return getAt(this.#doc, at);
  }

  pathItem(at: Segment[]): void {
    const item = this.#node(at);
    if (!item) return;
    this.#parameters([...at, 'parameters']);
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      const op = [...at, method];
      this.#parameters([...op, 'parameters']);
      this.content([...op, 'requestBody']);
      const responses = this.#get([...op, 'responses']);
      if (isObject(responses)) for (const status of Object.keys(responses)) this.response([...op, 'responses', status]);
    }
  }

  #parameters(at: Segment[]): void {
    const list = this.#get(at);
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) this.parameter([...at, i]);
  }

  /** A parameter or header: `schema` with `example`/`examples`, or a `content` map. */
  parameter(at: Segment[]): void {
    const p = this.#node(at);
    if (!p) return;
    if (isObject(p.content)) this.content(at);
    else this.#examplesOf(p, at, 'schema' in p ? [...at, 'schema'] : undefined);
  }

  response(at: Segment[]): void {
    const r = this.#node(at);
    if (!r) return;
    this.content(at);
    if (isObject(r.headers)) for (const name of Object.keys(r.headers)) this.parameter([...at, 'headers', name]);
  }

  /** The media types under `content` of a request body, response or parameter. */
  content(at: Segment[]): void {
    const owner = this.#node(at);
    if (!owner || !isObject(owner.content)) return;
    for (const type of Object.keys(owner.content)) {
      const mt = [...at, 'content', type];
      const media = this.#node(mt);
      if (media) this.#examplesOf(media, mt, 'schema' in media ? [...mt, 'schema'] : undefined);
    }
  }

  /** A component schema's own `examples` (JSON Schema) and `example` (OpenAPI, deprecated). */
  schema(at: Segment[]): void {
    const s = this.#node(at);
    if (!s) return;
    if (Array.isArray(s.examples)) {
      s.examples.forEach((value, i) => {
        this.cases.push({ where: formatPointer([...at, 'examples', i]), value, schemaAt: at });
      });
    }
    if ('example' in s) this.cases.push({ where: formatPointer([...at, 'example']), value: s.example, schemaAt: at });
  }

  /** `example` and `examples: {name: Example | $ref}` of a media type, parameter or header. */
  #examplesOf(owner: Record<string, unknown>, at: Segment[], schemaAt: Segment[] | undefined): void {
    const add = (where: Segment[], value: unknown, problem?: string) => {
      const c: ExampleCase = { where: formatPointer(where), value };
      if (problem) c.problem = problem;
      else if (schemaAt) c.schemaAt = schemaAt;
      else c.problem = 'example has no schema to validate against';
      this.cases.push(c);
    };
    if ('example' in owner) add([...at, 'example'], owner.example);
    if (!isObject(owner.examples)) return;
    for (const name of Object.keys(owner.examples)) {
      const where = [...at, 'examples', name];
      let example: unknown;
      try {
        example = deref(this.#doc, where).node;
      } catch (err) {
        add(where, undefined, (err as Error).message);
        continue;
      }
      if (!isObject(example)) add(where, undefined, 'example is not an Example object');
      else if ('value' in example) add(where, example.value);
      else if ('externalValue' in example)
        add(where, undefined, 'externalValue examples cannot be checked offline; use value');
      else add(where, undefined, 'Example object has no value');
    }
  }
}
