/**
 * The error codes of the HTTP edge and the one table that gives each its HTTP status (D-159). The codes of
 * the four REST surfaces are the unions generated from their contracts' `Error.code` enums (D-160), so a
 * code that a contract does not list fails to compile here. No code has a different status on different
 * surfaces, so one table serves them all.
 */
import type { Error as AdminError } from '@svckit/sdk/admin';
import type { Error as ExplorerError } from '@svckit/sdk/explorer';
import type { Error as InstitutionalError } from '@svckit/sdk/institutional';
import type { Error as WalletSessionError } from '@svckit/sdk/wallet';

/** Codes the institutional API answers (institutional.openapi.yaml#/components/schemas/Error). */
export type InstitutionalErrorCode = NonNullable<InstitutionalError['code']>;
/** Codes the explorer answers (explorer.openapi.yaml#/components/schemas/Error). */
export type ExplorerErrorCode = NonNullable<ExplorerError['code']>;
/** Codes the wallet session API answers (wallet.openapi.yaml#/components/schemas/Error). */
export type WalletSessionErrorCode = NonNullable<WalletSessionError['code']>;
/** Codes the admin API answers (admin.openapi.yaml#/components/schemas/Error). */
export type AdminErrorCode = NonNullable<AdminError['code']>;
/**
 * Codes answered outside the four REST contracts, in the same `{error, code}` shape (D-160): the `/ws`
 * upgrade (D-135), the evidence site (D-153) and the documentation pages.
 */
export type OriginErrorCode = 'TOO_MANY_CONNECTIONS' | 'EVIDENCE_NOT_BUILT' | 'EVIDENCE_INVALID' | 'DOCS_NOT_BUILT';
/** Every code the HTTP edge answers. */
export type ErrorCode =
  | InstitutionalErrorCode
  | ExplorerErrorCode
  | WalletSessionErrorCode
  | AdminErrorCode
  | OriginErrorCode;

/** The HTTP statuses an error answers with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 501 | 503;

/** The HTTP status of each code (D-159); the type makes it list every code of every contract, and no other. */
export const HTTP_STATUS: { readonly [C in ErrorCode]: ErrorStatus } = {
  // Request content (D-022: everything about content, limits and balances is 400).
  INVALID_PARAMETER: 400,
  INVALID_REQUEST: 400,
  BODY_TOO_DEEP: 400,
  INVALID_AMOUNT: 400,
  UNKNOWN_ACCOUNT: 400,
  UNSUPPORTED_CURRENCY: 400,
  ACCOUNT_NOT_APPROVED: 400,
  SINGLE_LIMIT_EXCEEDED: 400,
  DAILY_LIMIT_EXCEEDED: 400,
  INSUFFICIENT_BALANCE: 400,
  TRANSFER_REVERTED: 400,
  TRANSFER_REFUSED: 400,
  CREDITOR_NOT_ON_PLATFORM: 400,
  ACCOUNT_CLOSED: 400,
  INVALID_VOTE: 400,
  SVC_ID_MISMATCH: 400,
  UNSUPPORTED_CHAIN: 400,
  PRIVATE_MATERIAL_REFUSED: 400,
  CURRENCY_MISMATCH: 400,
  COUNTERPARTY_NOT_ALLOWED: 400,
  SPENDING_CEILING_EXCEEDED: 400,
  SHARE_LABEL_MISMATCH: 400,
  NOT_A_SEALED_SHARE: 400,
  EMAIL_CODE_INVALID: 400,
  DEVICE_ID_MISMATCH: 400,
  TOO_MANY_DEVICES: 400,
  NOT_AN_ENVELOPE: 400,
  // Credentials (spec: "missing or invalid API key").
  UNAUTHENTICATED: 401,
  STALE_TIMESTAMP: 401,
  INVALID_SIGNATURE: 401,
  REPLAYED_SIGNATURE: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  PROOF_EXPIRED: 401,
  CHALLENGE_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  // Permission (D-015, D-058).
  PERMISSION_DENIED: 403,
  ADMIN_TOKEN_REQUIRED: 403,
  OWNER_BINDING_REQUIRED: 403,
  NOT_AN_OWNER: 403,
  NOT_BINDING_WALLET: 403,
  NOT_BINDING_OWNER: 403,
  // The addressed resource does not exist.
  NOT_FOUND: 404,
  SVC_ID_NOT_REGISTERED: 404,
  BINDING_NOT_FOUND: 404,
  MANAGED_ACCOUNT_NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  // The resource's state forbids the operation.
  IDEMPOTENCY_IN_PROGRESS: 409,
  DUPLICATE_UETR: 409,
  NOT_SETTLED: 409,
  REVOKED: 409,
  DUPLICATE_KEY: 409,
  DUPLICATE_REFERENCE: 409,
  INVALID_TRANSITION: 409,
  ROTATION_IN_PROGRESS: 409,
  KEK_EXTERNAL: 409,
  EXTERNAL_CHAIN: 409,
  LOCAL_CHAIN_ONLY: 409,
  PLATFORM_ACCOUNT: 409,
  FUNDING_UNAVAILABLE: 409,
  FUNDING_REVERTED: 409,
  NOT_DEAD: 409,
  NOT_OWNED: 409,
  QUOTA_EXCEEDED: 409,
  BINDING_EXISTS: 409,
  BINDING_STATE_CONFLICT: 409,
  MANAGED_ACCOUNT_EXISTS: 409,
  // Fastify's own refusals of a request body.
  BODY_TOO_LARGE: 413,
  // D-217: what sync holds would pass the identity's budget or the service's total.
  SYNC_QUOTA_EXCEEDED: 413,
  SYNC_STORAGE_FULL: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // D-046: an idempotency key reused with another body.
  IDEMPOTENCY_KEY_REUSED: 422,
  // D-022, D-024, D-135.
  RATE_LIMITED: 429,
  TOO_MANY_CONNECTIONS: 429,
  // A defect of this server; the body reveals nothing (house rule 3), or a return that did not complete.
  INTERNAL: 500,
  RETURN_FAILED: 500,
  // An operation of the contract this server version does not implement.
  NOT_IMPLEMENTED: 501,
  // A dependency (chain node, database, a build step) is unavailable; the caller may retry.
  UNAVAILABLE: 503,
  CHAIN_UNAVAILABLE: 503,
  VALIDATOR_METADATA_UNAVAILABLE: 503,
  FUNDING_REFUSED: 503,
  FUNDING_NOT_MINED: 503,
  TOO_MANY_CHALLENGES: 503,
  EXTENSION_NOT_BUILT: 503,
  EVIDENCE_NOT_BUILT: 503,
  EVIDENCE_INVALID: 503,
  DOCS_NOT_BUILT: 503,
};

/**
 * D-159: codes of a missing thing that answer 400 instead when a request body field names the thing
 * (the error's `details.field`), as the contract documents; the path or token naming it stays 404.
 */
export const NAMED_IN_BODY_STATUS: { readonly [C in ErrorCode]?: ErrorStatus } = { DEVICE_NOT_FOUND: 400 };

/** Every code as a constant, for call sites: `ErrorCode.UNKNOWN_ACCOUNT`. */
export const ErrorCode = Object.freeze(Object.fromEntries(Object.keys(HTTP_STATUS).map((code) => [code, code]))) as {
  readonly [C in ErrorCode]: C;
};

/** Whether `code` is one the edge answers. */
export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(HTTP_STATUS, code);

/** The status of `code`; `namedInBody` when a request body field names the missing thing (D-159). */
export function statusOf(code: ErrorCode, namedInBody = false): ErrorStatus {
  return (namedInBody ? NAMED_IN_BODY_STATUS[code] : undefined) ?? HTTP_STATUS[code];
}
