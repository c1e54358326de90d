/**
 * The judges of the generated checks on an answer to an OpenAPI operation: each case's answer is held to the
 * contract (status, content type, headers, schema, error shape) and to what the case's kind expects (D-185,
 * D-189, D-190).
 */
import { describeErrors, parameterErrors, schemaErrors } from '../core/ajv.ts';
import type { EngineCase } from '../core/cases.ts';
import type { CaseVerdict } from '../core/checks.ts';
import type { WireResponse } from '../core/client.ts';
import type { NamedCheck } from '../core/names.ts';
import type { Schema } from '../core/schema.ts';
import type { Contract, Operation } from './contract.ts';

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
export function evaluate(contract: Contract, op: Operation, c: EngineCase, res: WireResponse): CaseVerdict[] {
  const out: CaseVerdict[] = [];
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
function errorShape(contract: Contract, op: Operation, res: WireResponse, out: CaseVerdict[]): void {
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
