/**
 * Holds one request against its contract operation, as a validating mock server does: the security
 * requirement first (401), then the parameters and the JSON body against their schemas (400). The answer for
 * a refusal is the contract's own documented error response for that status, with the `error` detail naming
 * what was wrong (every OpenAPI surface's error shape is `{error}`, D-022/D-023).
 */
import type { DocumentValidator } from '../checks/spec-examples/validator.ts';
import type { Route, RouteParameter } from './routes.ts';

/** What the mock received, already split. */
export interface MockRequest {
  /** Upper-case method. */
  method: string;
  /** Path parameter values, in template order (percent-decoded). */
  pathValues: string[];
  /** Query string parameters (the first value of each name). */
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The raw body text ('' when none). */
  body: string;
}

/** A refusal: the status and the detail for the error body. */
export interface Refusal {
  /** HTTP status the contract documents for the refusal. */
  status: number;
  /** Human-readable detail naming the field and the expectation. */
  detail: string;
}

/** The scheme types of the contract's `components.securitySchemes`, by name. */
export type SecuritySchemes = Record<string, { type?: string; scheme?: string; in?: string; name?: string }>;

/**
 * True when the request carries the mocks' own credential in the form `scheme` asks for (D-186): the bearer
 * token the mocks hand out for every bearer scheme; an apiKey header scheme (SVC-MLDSA) is not held by the mocks.
 */
function carries(
  scheme: SecuritySchemes[string] | undefined,
  headers: MockRequest['headers'],
  credential: string,
): boolean {
  if (!scheme) return false;
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') return headers.authorization === credential;
  return false;
}

/** The raw text as the contract's schemas may read it: the string itself, or the JSON scalar it spells. */
function candidates(raw: string): unknown[] {
  const out: unknown[] = [raw];
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) out.push(Number(raw));
  if (raw === 'true' || raw === 'false') out.push(raw === 'true');
  return out;
}

/** Problems with one parameter value (empty when some reading of it validates). */
function parameterProblems(validator: DocumentValidator, p: RouteParameter, raw: string): string[] {
  if (!p.schemaAt) return [];
  let first: string[] = [];
  for (const value of candidates(raw)) {
    const problems = validator.validate({ where: `"${p.name}"`, value, schemaAt: p.schemaAt });
    if (problems.length === 0) return [];
    if (first.length === 0) first = problems;
  }
  return first;
}

/** The first refusal the contract requires for `req` on `route`, or undefined when the request conforms. */
export function checkRequest(
  route: Route,
  req: MockRequest,
  validator: DocumentValidator,
  schemes: SecuritySchemes,
  credential: string,
): Refusal | undefined {
  const open = route.security.length === 0 || route.security.some((alternative) => alternative.length === 0);
  const held = (name: string) => carries(schemes[name], req.headers, credential);
  if (!open && !route.security.some((alternative) => alternative.every(held)))
    return { status: 401, detail: `"Authorization" expected credentials for ${route.security.flat().join(' or ')}` };
  for (const p of route.parameters) {
    let raw: string | undefined;
    if (p.in === 'path') raw = req.pathValues[route.pathNames.indexOf(p.name)];
    else if (p.in === 'query') raw = req.query.get(p.name) ?? undefined;
    else if (p.in === 'header') raw = req.headers[p.name.toLowerCase()];
    else continue;
    if (raw === undefined) {
      if (p.required) return { status: 400, detail: `"${p.name}" is required` };
      continue;
    }
    const problems = parameterProblems(validator, p, raw);
    if (problems.length) {
      // A path that names no resource of the operation is a 404 where the operation documents no 400.
      const status = p.in === 'path' && !route.statuses.includes('400') && route.statuses.includes('404') ? 404 : 400;
      return { status, detail: problems[0] ?? `"${p.name}" is invalid` };
    }
  }
  if (route.body) {
    if (req.body === '') {
      if (route.body.required) return { status: 400, detail: 'request body is required' };
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(req.body);
    } catch {
      return { status: 400, detail: 'request body expected JSON' };
    }
    if (route.body.schemaAt) {
      const problems = validator.validate({ where: 'body', value, schemaAt: route.body.schemaAt });
      if (problems.length) return { status: 400, detail: problems[0] ?? 'body is invalid' };
    }
  }
  return undefined;
}
