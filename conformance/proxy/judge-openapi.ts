/**
 * The proxy's judges on an exchange of an OpenAPI surface (D-249): the request is held to its operation's
 * parameters and body (the client's mistakes), and the answer to the contract with the generated checks'
 * own judges (`evaluate`), as the engine judges its cases: a request the contract refuses makes the exchange
 * a negative case, whose answer must be a 4xx.
 */
import type { ErrorObject } from 'ajv';
import { parameterErrors, schemaErrors } from '../engine/core/ajv.ts';
import type { EngineCase } from '../engine/core/cases.ts';
import type { NamedCheck } from '../engine/core/names.ts';
import type { Contract, Operation } from '../engine/openapi/contract.ts';
import { documented, evaluate, pointerValue } from '../engine/openapi/judges.ts';
import { redactBody, SECRET_FIELD } from '../report/format.ts';
import type { ClientFinding, Judgement, ProxiedExchange, ProxyVerdict } from './exchange.ts';
import { pointerSegment, shortValue } from './exchange.ts';

/**
 * The generated checks the proxy judges an OpenAPI answer by (D-249). `positive_data_acceptance` and
 * `ignored_auth` are left out: whether a client's credential is right, or its input meant to be refused, is
 * not the proxy's to know; the kinds of stateful sequences never occur in traffic.
 */
export const OPENAPI_PROXY_CHECKS: readonly NamedCheck[] = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'error_shape_conformance',
  'negative_data_rejection',
  'unsupported_method',
];

/** The first ajv error as a pointer under `root` and the value there. */
function firstError(root: string, errors: readonly ErrorObject[], doc: unknown): { pointer: string; value?: string } {
  const e = errors[0];
  if (!e) return { pointer: root };
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  const pointer = `${root}${e.instancePath}${missing !== undefined ? `/${pointerSegment(missing)}` : ''}`;
  const value = shortValue(missing !== undefined ? undefined : pointerValue(doc, e.instancePath));
  return value === undefined ? { pointer } : { pointer, value };
}

/** The request's mistakes against `op`, and its values by `in:name` (the case's input). */
function judgeRequest(
  op: Operation,
  exchange: ProxiedExchange,
  path: Record<string, string>,
): { findings: ClientFinding[]; params: Record<string, string | undefined>; body?: unknown } {
  const url = new URL(exchange.request.url);
  const findings: ClientFinding[] = [];
  const params: Record<string, string | undefined> = {};
  const finding = (pointer: string, message: string) => findings.push({ operation: op.id, pointer, message });
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    const value =
      p.in === 'path'
        ? path[p.name]
        : p.in === 'query'
          ? (url.searchParams.get(p.name) ?? undefined)
          : exchange.request.headers[p.name.toLowerCase()];
    params[`${p.in}:${p.name}`] = value;
    if (value === undefined) {
      if (p.required) finding(`/${p.in}/${pointerSegment(p.name)}`, `required ${p.in} parameter ${p.name} missing`);
      continue;
    }
    const errors = parameterErrors(p.schema, value);
    if (errors.length)
      finding(`/${p.in}/${pointerSegment(p.name)}`, `${p.name} ${JSON.stringify(value)}: ${errors[0]?.message ?? ''}`);
  }
  const text = exchange.request.body;
  if (!op.body || exchange.requestCut) return { findings, params };
  if (text === undefined || text === '') {
    if (op.body.required) finding('/body', 'request body missing (required)');
    return { findings, params };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    finding('/body', 'request body is not JSON');
    return { findings, params };
  }
  const errors = schemaErrors(op.body.schema, body);
  if (errors.length) {
    const at = firstError('/body', errors, body);
    finding(at.pointer, `request body: ${errors[0]?.message ?? ''}`);
  }
  return { findings, params, body };
}

/** Where each check looked in the answer. */
function locate(check: NamedCheck, contract: Contract, op: Operation, exchange: ProxiedExchange) {
  const res = exchange.response;
  if (check === 'content_type_conformance')
    return { pointer: '/headers/content-type', value: shortValue(res.headers['content-type']) };
  if (check === 'response_headers_conformance') return { pointer: '/headers' };
  if (check === 'response_schema_conformance' || check === 'error_shape_conformance') {
    const schema =
      documented(op, res.status)?.schema ?? (check === 'error_shape_conformance' ? contract.errorSchema : undefined);
    if (!schema || res.json === undefined) return { pointer: '/body', value: shortValue(res.text) };
    return firstError('/body', schemaErrors(schema, res.json), res.json);
  }
  return { pointer: '/status', value: String(res.status) };
}

/** Judges one exchange of `op` (path parameters `path`), or of a path of `contract` with no such operation. */
export function judgeOpenApi(
  contract: Contract,
  route: { op: Operation; path: Record<string, string> } | undefined,
  exchange: ProxiedExchange,
): Judgement {
  const url = new URL(exchange.request.url);
  const method = exchange.request.method;
  // A method or path the contract does not document: judged as the engine's unsupported_method case.
  const op: Operation = route?.op ?? {
    surface: contract.surface,
    method,
    route: url.pathname,
    id: `${method} ${url.pathname}`,
    parameters: [],
    responses: {},
    security: [],
  };
  const request = route
    ? judgeRequest(op, exchange, route.path)
    : {
        findings: [{ operation: op.id, pointer: '/path', message: `no operation of the ${contract.surface} contract` }],
        params: {},
      };
  const c: EngineCase = {
    surface: contract.surface,
    operation: op.id,
    phase: 'examples',
    kind: !route ? 'unsupported_method' : request.findings.length ? 'negative' : 'positive',
    reason: `proxied exchange ${exchange.n}${request.findings.length ? `: ${request.findings[0]?.message}` : ''}`,
    // The case goes into reports and case files: secret fields and header values are redacted (D-232).
    input: {
      params: Object.fromEntries(
        Object.entries(request.params).map(([k, v]) => [k, v !== undefined && SECRET_FIELD.test(k) ? '[redacted]' : v]),
      ),
      ...('body' in request ? { body: JSON.parse(redactBody(JSON.stringify(request.body))) as unknown } : {}),
    },
    method,
    authenticated: exchange.request.headers.authorization !== undefined,
  };
  const judgement: Judgement = {
    surface: contract.surface,
    operation: op.id,
    client: request.findings,
    verdicts: [],
    case: c,
  };
  if (exchange.responseCut) return { ...judgement, notJudged: 'the answer body is over the bound (D-250)' };
  if (exchange.response.status === 0) {
    // No answer at all (refused, cut, timed out): the server failed the exchange, judged by not_a_server_error
    // alone, as the chain's judge and security_headers treat a case without an answer.
    judgement.verdicts = [
      { check: 'not_a_server_error', ok: false, message: exchange.response.text, pointer: '/status', value: '0' },
    ];
    return judgement;
  }
  const checks = OPENAPI_PROXY_CHECKS.filter((check) => check !== 'unsupported_method' || !route);
  judgement.verdicts = evaluate(contract, op, c, exchange.response, checks).map((v): ProxyVerdict => {
    if (v.ok) return { check: v.check, ok: true, pointer: '' };
    const at = locate(v.check, contract, op, exchange);
    const out: ProxyVerdict = { check: v.check, ok: false, message: v.message ?? '', pointer: at.pointer };
    if (at.value !== undefined) out.value = at.value;
    return out;
  });
  return judgement;
}

/** Whether the answer's status is documented for the operation (coverage). */
export const isDocumented = (op: Operation, status: number): boolean => documented(op, status) !== undefined;
