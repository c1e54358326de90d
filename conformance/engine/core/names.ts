/** The names of the engine's generated checks (ids `generated.<name>`; their registry entries: registry.ts). */

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
