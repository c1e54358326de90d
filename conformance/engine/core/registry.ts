/**
 * The checks generated from the contracts, as entries of the one check registry (D-232): each has its id
 * (`generated.<name>`, also its flag and config key), the phases whose cases it judges, its source and severity.
 * Their judges are applied by the engine to every case of those phases: one function per check in `JUDGES`
 * (openapi/judges.ts) for the OpenAPI answers, `evaluateRpc` (openrpc/judges.ts) for JSON-RPC, and the document
 * cases (asyncapi/cases.ts, json-schema/evidence-cases.ts) judged in process; `security_headers`,
 * `tls_hybrid_group` (core/checks.ts) and `response_time` (core/response-time.ts) on every surface.
 */
import type { CheckSource, GeneratedCheck, GeneratedPhase } from '../../catalogue.ts';

const ANSWERS: readonly GeneratedPhase[] = ['examples', 'coverage', 'fuzz', 'stateful'];

/** One entry: MUST for a specification quote, SHOULD for a decision (house rule 7). */
function generated(
  name: string,
  title: string,
  phases: readonly GeneratedPhase[],
  source: CheckSource,
): GeneratedCheck {
  return {
    id: `generated.${name}`,
    title,
    origin: 'generated',
    surface: 'all',
    phases,
    source,
    severity: 'quote' in source ? 'MUST' : 'SHOULD',
    needs: [],
  };
}

/** Every generated check, in report order. */
export const GENERATED_CHECKS: readonly GeneratedCheck[] = [
  generated('not_a_server_error', 'No input gets a 5xx answer', ANSWERS, { decision: 'D-185' }),
  generated('status_code_conformance', 'The status is one the contract documents for the operation', ANSWERS, {
    decision: 'D-185',
  }),
  generated('content_type_conformance', 'The content type is one the contract documents', ANSWERS, {
    quote: 'All bodies are JSON.',
  }),
  generated(
    'response_headers_conformance',
    'The headers the contract documents for the status are present and valid',
    ANSWERS,
    { decision: 'D-185' },
  ),
  generated('response_schema_conformance', "The body validates against the contract's schema for the status", ANSWERS, {
    decision: 'D-185',
  }),
  generated('error_shape_conformance', "An error answer has the surface's error shape", ANSWERS, { decision: 'D-022' }),
  generated('negative_data_rejection', 'Input the contract refuses gets a 4xx', ['coverage', 'fuzz'], {
    decision: 'D-185',
  }),
  generated(
    'positive_data_acceptance',
    'Input the contract accepts passes validation',
    ['examples', 'coverage', 'fuzz'],
    {
      decision: 'D-185',
    },
  ),
  generated('missing_required_header', 'A request without a required header gets a 4xx', ['coverage'], {
    decision: 'D-185',
  }),
  generated(
    'unsupported_method',
    'A method the path does not document gets 404 or 405 in the error shape',
    ['coverage'],
    {
      decision: 'D-185',
    },
  ),
  generated('ignored_auth', 'A missing or wrong credential gets 401', ['coverage'], {
    quote: 'missing or invalid credentials give 401',
  }),
  generated(
    'use_after_free',
    'A resource read after its delete answers 404, a credential used after its revocation 401',
    ['stateful'],
    { decision: 'D-190' },
  ),
  generated(
    'ensure_resource_availability',
    'A resource just created is readable by the operation its link names',
    ['stateful'],
    { decision: 'D-189' },
  ),
  generated(
    'jsonrpc_error_codes',
    'Every JSON-RPC error code is one the chain contract lists; invalid params get -32602',
    ['examples', 'coverage', 'fuzz'],
    { decision: 'D-193' },
  ),
  generated('tls_hybrid_group', 'Every origin the run uses negotiates X25519MLKEM768', ['examples'], {
    quote: 'All institutional REST endpoints are served over HTTPS with hybrid post-quantum TLS (X25519MLKEM768).',
  }),
  generated(
    'security_headers',
    'Every answer of an https origin the run uses carries Strict-Transport-Security and X-Content-Type-Options: nosniff',
    ANSWERS,
    { decision: 'D-207' },
  ),
  generated(
    'response_time',
    'Each operation answers within the bounds the run configures (p95 and p99 of its cases)',
    ['examples', 'coverage', 'fuzz'],
    { decision: 'D-232' },
  ),
  generated(
    'message_valid_accepted',
    'A delivery the AsyncAPI contract allows, signed right, is accepted',
    ['examples', 'coverage', 'fuzz'],
    {
      decision: 'D-194',
    },
  ),
  generated('message_tampered_refused', 'A delivery changed after signing is refused', ['coverage', 'fuzz'], {
    decision: 'D-194',
  }),
  generated('message_invalid_refused', 'A delivery the AsyncAPI contract refuses is refused', ['coverage', 'fuzz'], {
    decision: 'D-194',
  }),
  generated(
    'evidence_valid_verified',
    'An evidence document the schema and rules allow verifies',
    ['examples', 'coverage', 'fuzz'],
    {
      decision: 'D-195',
    },
  ),
  generated(
    'evidence_schema_refused',
    'An evidence document the schema refuses is refused by the schema',
    ['coverage', 'fuzz'],
    {
      decision: 'D-195',
    },
  ),
  generated(
    'evidence_rule_refused',
    'An evidence document breaking a rule beyond the schema is refused by that rule',
    ['coverage', 'fuzz'],
    {
      decision: 'D-195',
    },
  ),
  generated(
    'evidence_cli_agrees',
    '`svckit evidence verify` agrees with the library on every generated document',
    ['examples', 'coverage', 'fuzz'],
    {
      decision: 'D-195',
    },
  ),
];

/** The name of a generated check id (`generated.ignored_auth` → `ignored_auth`). */
export const generatedName = (id: string): string => id.slice('generated.'.length);

/** Whether a run tallies the generated check `name` (D-232: `--only` and `--exclude` reach the generated checks). */
export const selected = (options: { checks?: ReadonlySet<string> }, name: string): boolean =>
  options.checks === undefined || options.checks.has(name);
