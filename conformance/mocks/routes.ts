/**
 * The operations of one OpenAPI contract as the validating mocks match them: method, path template, the
 * parameters and request body the contract declares, the security alternatives, and the documented error
 * answers. Local `$ref`s of parameters, bodies and responses are followed; schemas stay as pointers so that
 * the contract's own validator (JSON Schema 2020-12) checks them.
 */
import { deref, isObject, type Segment } from '../checks/spec-examples/pointer.ts';

/** One declared parameter. */
export interface RouteParameter {
  /** Parameter name (header names are matched case-insensitively). */
  name: string;
  /** Where it travels. */
  in: 'path' | 'query' | 'header' | 'cookie';
  /** Whether the contract requires it. */
  required: boolean;
  /** Pointer to its schema inside the document. */
  schemaAt?: Segment[];
}

/** One operation of the contract. */
export interface Route {
  /** The operationId. */
  operationId: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The path template, e.g. `/accounts/{id}`. */
  template: string;
  /** Matches a request path below the server's base path; captures the path parameters in order. */
  pattern: RegExp;
  /** Path parameter names in template order. */
  pathNames: string[];
  /** Declared parameters (operation-level over path-level). */
  parameters: RouteParameter[];
  /** Request body: required flag and pointer to the JSON schema. */
  body?: { required: boolean; schemaAt?: Segment[] };
  /** Security alternatives: each is a list of scheme names that must all be present; empty means none. */
  security: string[][];
  /** Documented statuses. */
  statuses: string[];
  /** Pointer to each documented response (after `$ref`s). */
  responseAt: Map<string, Segment[]>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Escapes a literal path piece for a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles a path template into a whole-path regular expression. */
function compileTemplate(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((piece) => {
      const name = /^\{([^}]+)\}$/.exec(piece)?.[1];
      if (name === undefined) return escapeRegExp(piece);
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** Reads the parameters listed at `at` (a path item's or an operation's). */
function readParameters(doc: Record<string, unknown>, at: Segment[]): RouteParameter[] {
  const list = deref(doc, at).node;
  if (!Array.isArray(list)) return [];
  return list.map((_, i) => {
    const { node, at: where } = deref(doc, [...at, i]);
    const p = node as Record<string, unknown>;
    return {
      name: String(p.name),
      in: p.in as RouteParameter['in'],
      required: p.required === true || p.in === 'path',
      schemaAt: isObject(p.schema) ? [...where, 'schema'] : undefined,
    };
  });
}

/** Every operation of the contract `doc`. */
export function readRoutes(doc: Record<string, unknown>): Route[] {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  const globalSecurity = Array.isArray(doc.security) ? (doc.security as Record<string, unknown>[]) : [];
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const shared = readParameters(doc, ['paths', template, 'parameters']);
    const { pattern, names } = compileTemplate(template);
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const own = readParameters(doc, ['paths', template, method, 'parameters']);
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      const security = (Array.isArray(op.security) ? (op.security as Record<string, unknown>[]) : globalSecurity).map(
        (alternative) => Object.keys(alternative),
      );
      let body: Route['body'];
      if (op.requestBody !== undefined) {
        const { node, at } = deref(doc, ['paths', template, method, 'requestBody']);
        const rb = node as Record<string, unknown>;
        const media = (rb.content ?? {}) as Record<string, Record<string, unknown>>;
        const json = Object.keys(media).find((m) => m.includes('json'));
        body = { required: rb.required === true, schemaAt: json ? [...at, 'content', json, 'schema'] : undefined };
      }
      const responses = (op.responses ?? {}) as Record<string, unknown>;
      const responseAt = new Map<string, Segment[]>();
      for (const status of Object.keys(responses))
        responseAt.set(status, deref(doc, ['paths', template, method, 'responses', status]).at);
      routes.push({
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        template,
        pattern,
        pathNames: names,
        parameters,
        body,
        security,
        statuses: Object.keys(responses),
        responseAt,
      });
    }
  }
  return routes;
}
