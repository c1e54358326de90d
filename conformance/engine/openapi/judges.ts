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
import type { ExpectedStatuses } from '../core/types.ts';
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

/** One answer as every judge sees it: the contract, the operation, the case and the response. */
export interface Answer {
  contract: Contract;
  op: Operation;
  c: EngineCase;
  res: WireResponse;
}

/** A judge's finding: undefined when the check does not apply to the answer, else a problem or none (passed). */
type Finding = undefined | { problem?: string };

const judged = (problem: string | undefined): Finding => (problem ? { problem } : {});
const notUnsupported = (a: Answer) => a.c.kind !== 'unsupported_method';

/**
 * The judge of each generated check on an OpenAPI answer (D-232), in report order: one function per check, the
 * same the engine applies to every case and the hand-written checks call (judge-answer.ts).
 */
export const JUDGES: Readonly<Partial<Record<NamedCheck, (a: Answer) => Finding>>> = {
  not_a_server_error: ({ res }) =>
    judged(res.status >= 500 ? `HTTP ${res.status}: ${res.text.slice(0, 200)}` : undefined),
  unsupported_method: ({ c, res }) =>
    c.kind !== 'unsupported_method'
      ? undefined
      : judged(res.status === 405 || res.status === 404 ? undefined : `HTTP ${res.status}, expected 405 or 404`),
  status_code_conformance: (a) =>
    !notUnsupported(a)
      ? undefined
      : judged(
          documented(a.op, a.res.status)
            ? undefined
            : `HTTP ${a.res.status} is not documented for ${a.op.id} (documented: ${Object.keys(a.op.responses).join(', ')})`,
        ),
  content_type_conformance: (a) => {
    const spec = documented(a.op, a.res.status);
    if (!notUnsupported(a) || !spec || a.res.text === '' || spec.mediaTypes.length === 0) return undefined;
    const type = (a.res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return judged(
      spec.mediaTypes.some((m) => m.toLowerCase() === type)
        ? undefined
        : `content-type ${JSON.stringify(type)}, documented: ${spec.mediaTypes.join(', ')}`,
    );
  },
  response_headers_conformance: (a) => {
    const spec = documented(a.op, a.res.status);
    if (!notUnsupported(a) || !spec || Object.keys(spec.headers).length === 0) return undefined;
    const problems: string[] = [];
    for (const [name, h] of Object.entries(spec.headers)) {
      const value = a.res.headers[name];
      if (value === undefined) {
        if (h.required) problems.push(`header ${name} missing`);
      } else if (h.schema && parameterErrors(h.schema, value).length > 0)
        problems.push(`header ${name}: ${JSON.stringify(value)} ${describeErrors(parameterErrors(h.schema, value))}`);
    }
    return judged(problems.join('; ') || undefined);
  },
  response_schema_conformance: (a) => {
    const spec = documented(a.op, a.res.status);
    if (!notUnsupported(a) || !spec?.schema) return undefined;
    const errors = a.res.json === undefined ? undefined : schemaErrors(spec.schema, a.res.json);
    return judged(
      errors === undefined
        ? `HTTP ${a.res.status}: body is not JSON: ${a.res.text.slice(0, 120)}`
        : errors.length
          ? `HTTP ${a.res.status}: ${describeErrors(errors)}`
          : undefined,
    );
  },
  error_shape_conformance: ({ contract, op, res }) => errorShape(contract, op, res),
  negative_data_rejection: ({ c, res }) =>
    c.kind !== 'negative'
      ? undefined
      : judged(
          res.status >= 400 && res.status < 500
            ? undefined
            : `HTTP ${res.status} for invalid input (${c.reason}), expected 4xx`,
        ),
  missing_required_header: ({ c, res }) =>
    c.kind !== 'missing_header'
      ? undefined
      : judged(
          res.status >= 400 && res.status < 500
            ? undefined
            : `HTTP ${res.status} without a required header, expected 4xx`,
        ),
  ignored_auth: ({ c, res }) =>
    c.kind !== 'unauthenticated' && c.kind !== 'bad_credentials'
      ? undefined
      : judged(
          res.status === 401
            ? undefined
            : `HTTP ${res.status} ${c.kind === 'unauthenticated' ? 'without credentials' : 'with a wrong credential'}, expected 401`,
        ),
  use_after_free: ({ c, res }) => {
    if (c.kind !== 'after_delete' && c.kind !== 'after_revoke') return undefined;
    // D-190: a deleted resource is gone (404); a revoked credential no longer authenticates (401).
    const expected = c.kind === 'after_delete' ? 404 : 401;
    return judged(
      res.status === expected
        ? undefined
        : `HTTP ${res.status} ${c.kind === 'after_delete' ? 'for a resource already deleted' : 'with a credential already revoked'}, expected ${expected} (${c.sequence ?? c.reason})`,
    );
  },
  ensure_resource_availability: ({ c, res }) =>
    c.kind !== 'after_create' ? undefined : judged(availability(c, res.status, res.json)),
  positive_data_acceptance: ({ c, op, res }) =>
    c.kind !== 'positive'
      ? undefined
      : judged(
          acceptedByValidation(op, res.status, res.json)
            ? undefined
            : `HTTP ${res.status} for valid input (${c.reason}): ${res.text.slice(0, 200)}`,
        ),
};

/**
 * The checks whose verdict is the answer's status, and which a --config file's `expectedStatuses` may set per
 * operation (D-245).
 */
export const STATUS_JUDGED: readonly NamedCheck[] = [
  'status_code_conformance',
  'positive_data_acceptance',
  'negative_data_rejection',
  'missing_required_header',
  'ignored_auth',
  'use_after_free',
];

/**
 * Every verdict of the generated checks' judges on one answer (`checks`: only these; default every judge).
 * D-245: where `expected` lists statuses for the check and the operation, the answer is judged by that list
 * instead of the check's own rule, for the cases the check judges.
 */
export function evaluate(
  contract: Contract,
  op: Operation,
  c: EngineCase,
  res: WireResponse,
  checks?: readonly NamedCheck[],
  expected?: ExpectedStatuses,
): CaseVerdict[] {
  const answer: Answer = { contract, op, c, res };
  const out: CaseVerdict[] = [];
  for (const [check, judge] of Object.entries(JUDGES) as [NamedCheck, (a: Answer) => Finding][]) {
    if (checks && !checks.includes(check)) continue;
    const finding = judge(answer);
    if (finding === undefined) continue;
    const listed = expected?.get(check)?.[op.id];
    const problem = listed
      ? listed.includes(res.status)
        ? undefined
        : `HTTP ${res.status}, expected one of ${listed.join(', ')} (expectedStatuses of --config)`
      : finding.problem;
    out.push(problem === undefined ? { check, ok: true } : { check, ok: false, message: problem });
  }
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

/** The error shape of the surface: the documented schema for the status, else the contract's `Error` (4xx and 5xx). */
function errorShape(contract: Contract, op: Operation, res: WireResponse): Finding {
  if (res.status < 400) return undefined;
  const schema: Schema | undefined = documented(op, res.status)?.schema ?? contract.errorSchema;
  if (!schema) return undefined;
  const errors = res.json === undefined ? undefined : schemaErrors(schema, res.json);
  if (errors?.length === 0) return {};
  return {
    problem: `HTTP ${res.status}: ${errors ? describeErrors(errors) : `body is not JSON: ${res.text.slice(0, 120)}`}`,
  };
}
