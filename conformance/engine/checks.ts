/**
 * The named checks applied to every generated case's answer. Ids are stable: `generated.<name>`.
 * Each returns undefined when it does not apply to the case, else a verdict.
 */
import type { EngineCase } from './cases.ts';
import type { WireResponse } from './client.ts';
import type { Contract, Operation, Schema } from './contract.ts';
import { describeErrors, parameterErrors, schemaErrors } from './ajv.ts';
import type { CheckTally } from './run.ts';

/** The named checks, in report order. */
export const NAMED_CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'error_shape_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'missing_required_header',
  'unsupported_method',
  'ignored_auth',
  'use_after_free',
  'ensure_resource_availability',
  'jsonrpc_error_codes',
  'tls_hybrid_group',
  'security_headers',
  'response_time',
] as const;

/** One named check. */
export type NamedCheck = (typeof NAMED_CHECKS)[number];

/** For the checks page: the phases whose cases each named check judges, and where its rule comes from. */
export const NAMED_CHECK_SOURCES: Readonly<Record<NamedCheck, { phases: readonly string[]; source: string }>> = {
  not_a_server_error: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: 'no 5xx for any input (house rule: bad input is never a 500)',
  },
  status_code_conformance: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: 'the status is one the contract documents for the operation',
  },
  content_type_conformance: { phases: ['examples', 'coverage', 'fuzz'], source: 'spec: "All bodies are JSON."' },
  response_headers_conformance: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: 'the headers the contract documents for the status, present and valid',
  },
  response_schema_conformance: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: "the body validates against the contract's schema for the status",
  },
  error_shape_conformance: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: 'spec: "All institutional REST errors return JSON with an error field (string detail)." (D-022, D-023)',
  },
  negative_data_rejection: {
    phases: ['coverage', 'fuzz'],
    source: 'input the contract refuses gets a 4xx (spec: "400 | bad request")',
  },
  positive_data_acceptance: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: 'D-185: input the contract accepts passes validation',
  },
  missing_required_header: { phases: ['coverage'], source: 'a request without a required header gets a 4xx' },
  unsupported_method: {
    phases: ['coverage'],
    source: 'a method the path does not document gets 404 or 405 in the error shape',
  },
  ignored_auth: { phases: ['coverage'], source: 'spec: "missing or invalid credentials give 401"' },
  use_after_free: {
    phases: ['stateful'],
    source: 'D-190: a resource read after its delete answers 404, a credential used after its revocation 401',
  },
  ensure_resource_availability: {
    phases: ['stateful'],
    source: 'D-189: a resource just created is readable by the operation its link names',
  },
  jsonrpc_error_codes: {
    phases: ['examples', 'coverage', 'fuzz'],
    source:
      'D-192: every JSON-RPC error code is one the chain contract lists (or a JSON-RPC 2.0 / EIP-1474 code); invalid params get -32602',
  },
  security_headers: {
    phases: ['examples', 'coverage', 'fuzz', 'stateful'],
    source: 'D-207: every answer of every https origin the run uses carries Strict-Transport-Security and nosniff',
  },
  response_time: {
    phases: ['examples', 'coverage', 'fuzz'],
    source: "D-232: each operation's p95 and p99 answer times within the bounds --config gives",
  },
  tls_hybrid_group: {
    phases: ['examples'],
    source:
      'spec: "served over HTTPS with hybrid post-quantum TLS (X25519MLKEM768)", checked on every origin the run uses',
  },
};

/**
 * `security_headers` on one answer of an https origin (D-207): `Strict-Transport-Security` with a max-age, and
 * `X-Content-Type-Options: nosniff`; undefined when both are there.
 */
export function securityHeadersProblem(res: WireResponse): string | undefined {
  const problems: string[] = [];
  const hsts = res.headers['strict-transport-security'];
  if (hsts === undefined) problems.push('no Strict-Transport-Security header');
  else if (!/(^|;)\s*max-age\s*=\s*"?\d+"?\s*(;|$)/i.test(hsts))
    problems.push(`Strict-Transport-Security ${JSON.stringify(hsts)} has no max-age`);
  const nosniff = res.headers['x-content-type-options'];
  if (nosniff?.trim().toLowerCase() !== 'nosniff')
    problems.push(
      nosniff === undefined
        ? 'no X-Content-Type-Options header'
        : `X-Content-Type-Options ${JSON.stringify(nosniff)}, expected nosniff`,
    );
  return problems.length ? `HTTP ${res.status}: ${problems.join('; ')}` : undefined;
}

/**
 * `security_headers` on an answer (D-207): judged on https origins; on a plain-http loopback origin (D-233) it
 * is skipped with the reason, and a case without an answer (status 0) is judged by `not_a_server_error` alone.
 */
export function securityHeaders(
  ctx:
    | { tallies: Map<string, CheckTally>; contract: { surface: string } }
    | { tallies: Map<string, CheckTally>; surface: string },
  origin: URL,
  response: WireResponse,
): CheckVerdict[] {
  const surface = 'contract' in ctx ? ctx.contract.surface : ctx.surface;
  const tally = ctx.tallies.get(`${surface}:security_headers`);
  if (!tally || response.status === 0) return [];
  if (origin.protocol !== 'https:') {
    const reason = `${origin.origin} is plain http (D-233): HSTS applies to https origins only`;
    tally.skipped += 1;
    if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
    return [];
  }
  const problem = securityHeadersProblem(response);
  return [
    problem ? { check: 'security_headers', ok: false, message: problem } : { check: 'security_headers', ok: true },
  ];
}

/** A check's verdict on one case. */
export type CheckVerdict = { check: NamedCheck; ok: boolean; message?: string };

/**
 * Statuses with which a valid input counts as accepted by validation when documented for the operation:
 * the input passed validation and was refused for the state it names (no such account, a conflict, a rule
 * of the ledger) (D-185).
 */
export const PAST_VALIDATION = new Set([404, 409, 422]);

/** The machine codes (D-022) of a refusal by validation; a documented 400 with another code is past validation (D-185). */
export const VALIDATION_CODES = new Set([
  'INVALID_PARAMETER',
  'INVALID_REQUEST',
  'BODY_TOO_LARGE',
  'BODY_TOO_DEEP',
  'UNSUPPORTED_MEDIA_TYPE',
]);

/** The machine codes of a 403 about the credential itself: the engine's own credential must not get them. */
export const CREDENTIAL_CODES = new Set(['PERMISSION_DENIED', 'UNAUTHENTICATED', 'ADMIN_TOKEN_REQUIRED']);

/**
 * Whether a valid input's answer shows it passed validation (D-185): 2xx or a documented 3xx; a documented
 * 404, 409 or 422; a documented 401 of an operation that takes no credential (a proof inside the body
 * failed); a documented 400 whose machine code is not one of validation; a documented 403 whose code names
 * the state of the resource rather than the credential's permission (e.g. OWNER_BINDING_REQUIRED).
 */
export function acceptedByValidation(op: Operation, status: number, body: unknown): boolean {
  if (status >= 200 && status < 300) return true;
  if (op.responses[String(status)] === undefined) return false;
  if (status >= 300 && status < 400) return true;
  if (PAST_VALIDATION.has(status)) return true;
  if (status === 401 && op.security.every((alt) => Object.keys(alt).length === 0)) return true;
  const code = (body as { code?: unknown } | undefined)?.code;
  if (status === 403) return typeof code === 'string' && !CREDENTIAL_CODES.has(code);
  return status === 400 && typeof code === 'string' && !VALIDATION_CODES.has(code);
}

/** The response documented for `status` (or `default`). */
export function documented(op: Operation, status: number) {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

/** Every verdict of the named checks on one answer. */
export function evaluate(contract: Contract, op: Operation, c: EngineCase, res: WireResponse): CheckVerdict[] {
  const out: CheckVerdict[] = [];
  const fail = (check: NamedCheck, message: string) => out.push({ check, ok: false, message });
  const pass = (check: NamedCheck) => out.push({ check, ok: true });
  const verdict = (check: NamedCheck, problem: string | undefined) => (problem ? fail(check, problem) : pass(check));
  const status = res.status;
  verdict('not_a_server_error', status >= 500 ? `HTTP ${status}: ${res.text.slice(0, 200)}` : undefined);
  if (c.kind === 'unsupported_method') {
    verdict('unsupported_method', status === 405 || status === 404 ? undefined : `HTTP ${status}, expected 405 or 404`);
    errorShape(contract, op, res, out);
    return out;
  }
  const spec = documented(op, status);
  verdict(
    'status_code_conformance',
    spec
      ? undefined
      : `HTTP ${status} is not documented for ${op.id} (documented: ${Object.keys(op.responses).join(', ')})`,
  );
  if (spec && res.text !== '' && spec.mediaTypes.length > 0) {
    const type = (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    verdict(
      'content_type_conformance',
      spec.mediaTypes.some((m) => m.toLowerCase() === type)
        ? undefined
        : `content-type ${JSON.stringify(type)}, documented: ${spec.mediaTypes.join(', ')}`,
    );
  }
  if (spec && Object.keys(spec.headers).length > 0) {
    const problems: string[] = [];
    for (const [name, h] of Object.entries(spec.headers)) {
      const value = res.headers[name];
      if (value === undefined) {
        if (h.required) problems.push(`header ${name} missing`);
      } else if (h.schema && parameterErrors(h.schema, value).length > 0)
        problems.push(`header ${name}: ${JSON.stringify(value)} ${describeErrors(parameterErrors(h.schema, value))}`);
    }
    verdict('response_headers_conformance', problems.join('; ') || undefined);
  }
  if (spec?.schema) {
    const errors = res.json === undefined ? undefined : schemaErrors(spec.schema, res.json);
    verdict(
      'response_schema_conformance',
      errors === undefined
        ? `HTTP ${status}: body is not JSON: ${res.text.slice(0, 120)}`
        : errors.length
          ? `HTTP ${status}: ${describeErrors(errors)}`
          : undefined,
    );
  }
  errorShape(contract, op, res, out);
  if (c.kind === 'negative')
    verdict(
      'negative_data_rejection',
      status >= 400 && status < 500 ? undefined : `HTTP ${status} for invalid input (${c.reason}), expected 4xx`,
    );
  if (c.kind === 'missing_header')
    verdict(
      'missing_required_header',
      status >= 400 && status < 500 ? undefined : `HTTP ${status} without a required header, expected 4xx`,
    );
  if (c.kind === 'unauthenticated' || c.kind === 'bad_credentials')
    verdict(
      'ignored_auth',
      status === 401
        ? undefined
        : `HTTP ${status} ${c.kind === 'unauthenticated' ? 'without credentials' : 'with a wrong credential'}, expected 401`,
    );
  if (c.kind === 'after_delete' || c.kind === 'after_revoke') {
    // D-190: a deleted resource is gone (404); a revoked credential no longer authenticates (401).
    const expected = c.kind === 'after_delete' ? 404 : 401;
    verdict(
      'use_after_free',
      status === expected
        ? undefined
        : `HTTP ${status} ${c.kind === 'after_delete' ? 'for a resource already deleted' : 'with a credential already revoked'}, expected ${expected} (${c.sequence ?? c.reason})`,
    );
  }
  if (c.kind === 'after_create') verdict('ensure_resource_availability', availability(c, status, res.json));
  if (c.kind === 'positive')
    verdict(
      'positive_data_acceptance',
      acceptedByValidation(op, status, res.json)
        ? undefined
        : `HTTP ${status} for valid input (${c.reason}): ${res.text.slice(0, 200)}`,
    );
  return out;
}

/** Why a just-created resource is not available: not 2xx, or not in the array its `listed` names. */
function availability(c: EngineCase, status: number, body: unknown): string | undefined {
  const at = c.sequence ?? c.reason;
  if (status < 200 || status >= 300)
    return `HTTP ${status} reading what the sequence just created (${at}), expected 2xx`;
  if (!c.listed) return undefined;
  const items = pointerValue(body, c.listed.in);
  const want = c.listed.value;
  const holds = (item: unknown) =>
    want === undefined ||
    item === want ||
    (typeof item === 'object' && item !== null && Object.values(item).includes(want));
  if (Array.isArray(items) && items.some(holds)) return undefined;
  return `HTTP ${status} but ${c.listed.in} does not list ${want ?? 'anything'}: what the sequence just created is missing (${at})`;
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
export function pointerValue(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The error shape of the surface: the documented schema for the status, else the contract's `Error`. */
function errorShape(contract: Contract, op: Operation, res: WireResponse, out: CheckVerdict[]): void {
  if (res.status < 400) return;
  const schema: Schema | undefined = documented(op, res.status)?.schema ?? contract.errorSchema;
  if (!schema) return;
  const errors = res.json === undefined ? undefined : schemaErrors(schema, res.json);
  out.push(
    errors?.length === 0
      ? { check: 'error_shape_conformance', ok: true }
      : {
          check: 'error_shape_conformance',
          ok: false,
          message: `HTTP ${res.status}: ${errors ? describeErrors(errors) : `body is not JSON: ${res.text.slice(0, 120)}`}`,
        },
  );
}

/**
 * `tls_hybrid_group`: each origin the run talked to negotiates TLS 1.3 with X25519MLKEM768 when offered it
 * first among classical groups (spec: "hybrid post-quantum TLS (X25519MLKEM768)"), with the catalogue's own
 * handshake (conformance/checks/transport). A plain-http loopback node (D-192) has no TLS: skipped, never passed.
 */
export async function tlsHybridGroup(
  origins: readonly { url: URL; surface: CheckTally['surface'] }[],
  caCert: string | undefined,
  tallies: Map<string, CheckTally>,
): Promise<void> {
  const { handshake, HYBRID_GROUP } = await import('../checks/transport/index.ts');
  for (const { url, surface } of origins) {
    const tally = tallies.get(`${surface}:tls_hybrid_group`);
    if (!tally) continue;
    if (url.protocol !== 'https:') {
      const reason = `${url.origin} is plain http (a loopback node, D-192): no TLS group to check`;
      tally.skipped += 1;
      if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
      continue;
    }
    const h = await handshake({ kind: 'remote', capabilities: new Set(), ...(caCert ? { caCert } : {}) }, url, {
      groups: `${HYBRID_GROUP}:X25519:P-256`,
    });
    const problem = !h.ok
      ? `${url.origin}: handshake failed: ${h.error}`
      : h.group !== HYBRID_GROUP || h.protocol !== 'TLSv1.3'
        ? `${url.origin}: negotiated ${h.protocol} with group ${h.group}, expected TLSv1.3 with ${HYBRID_GROUP}`
        : undefined;
    if (!problem) {
      tally.passed += 1;
      continue;
    }
    tally.failed += 1;
    tally.failures.push({
      check: 'tls_hybrid_group',
      message: problem,
      case: {
        surface: surface as EngineCase['surface'], // the chain surface's cases share EngineCase's fields (RpcCase)
        operation: url.origin,
        phase: 'coverage',
        kind: 'positive',
        reason: `a TLS handshake offering ${HYBRID_GROUP}, X25519, P-256`,
        input: { params: {} },
        method: 'CONNECT',
        authenticated: false,
      },
      request: { method: 'CONNECT', url: url.origin, headers: {} },
      response: { status: 0, headers: {}, body: problem },
      shrunk: false,
    });
  }
}
