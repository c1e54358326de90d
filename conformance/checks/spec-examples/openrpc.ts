// Collects every example pairing of an OpenRPC 1.x document: `methods[].examples[]` with
// `params: [{name, value}]` against the method's parameter schemas (by position, or by name when
// paramStructure is "by-name") and `result: {name, value}` against the result schema.
import { deref, formatPointer, isObject, type Segment } from './pointer.ts';
import type { ExampleCase } from './validator.ts';

interface Resolved {
  node: unknown;
  at: Segment[];
}

/** Every method example in an OpenRPC document, paired with its parameter or result schema. */
export function collectOpenRpcExamples(doc: Record<string, unknown>): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const methods = Array.isArray(doc.methods) ? doc.methods : [];
  methods.forEach((_m, i) => {
    try {
      cases.push(...methodExamples(doc, deref(doc, ['methods', i])));
    } catch (err) {
      cases.push({ where: formatPointer(['methods', i]), problem: (err as Error).message });
    }
  });
  return cases;
}

function methodExamples(doc: Record<string, unknown>, method: Resolved): ExampleCase[] {
  if (!isObject(method.node)) return [{ where: formatPointer(method.at), problem: 'method is not an object' }];
  const m = method.node;
  const paramList = Array.isArray(m.params) ? m.params : [];
  const params = paramList.map((_p, i) => deref(doc, [...method.at, 'params', i]));
  const result = 'result' in m ? deref(doc, [...method.at, 'result']) : undefined;
  const byName = m.paramStructure === 'by-name';
  const cases: ExampleCase[] = [];
  const examples = Array.isArray(m.examples) ? m.examples : [];
  examples.forEach((_e, k) => {
    const pairing = deref(doc, [...method.at, 'examples', k]);
    const where = formatPointer(pairing.at);
    if (!isObject(pairing.node)) {
      cases.push({ where, problem: 'example pairing is not an object' });
      return;
    }
    const exParams = Array.isArray(pairing.node.params) ? pairing.node.params : [];
    const given = exParams.map((_x, j) => deref(doc, [...pairing.at, 'params', j]));
    const used = new Set<number>();
    given.forEach((ex, j) => {
      const exWhere = formatPointer(ex.at);
      const name = isObject(ex.node) ? ex.node.name : undefined;
      const index = byName ? params.findIndex((p) => isObject(p.node) && p.node.name === name) : j;
      const param = params[index];
      if (!param) {
        const problem = byName
          ? `example param ${JSON.stringify(name)} is not a parameter of the method`
          : `example gives ${given.length} params, the method takes ${params.length}`;
        cases.push({ where: exWhere, problem });
        return;
      }
      used.add(index);
      cases.push(valueCase(ex, param, exWhere));
    });
    params.forEach((p, index) => {
      if (!used.has(index) && isObject(p.node) && p.node.required === true) {
        cases.push({ where, problem: `required param ${JSON.stringify(p.node.name)} is missing from the example` });
      }
    });
    if ('result' in pairing.node) {
      const ex = deref(doc, [...pairing.at, 'result']);
      const exWhere = formatPointer(ex.at);
      cases.push(result ? valueCase(ex, result, exWhere) : { where: exWhere, problem: 'the method has no result' });
    }
  });
  return cases;
}

/** An Example object's `value` against a content descriptor's `schema`. */
function valueCase(example: Resolved, descriptor: Resolved, where: string): ExampleCase {
  if (!isObject(example.node) || !('value' in example.node)) return { where, problem: 'Example object has no value' };
  if (!isObject(descriptor.node) || !('schema' in descriptor.node)) {
    return { where, problem: `content descriptor ${formatPointer(descriptor.at)} has no schema` };
  }
  return { where: `${where}/value`, value: example.node.value, schemaAt: [...descriptor.at, 'schema'] };
}
