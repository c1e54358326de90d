/**
 * The REST error catalogue (house rule 3): each error class has a stable code and an HTTP status; one
 * handler (error-handler.ts) maps them to the surfaces' error shape `{error, code}` (spec: "All
 * institutional REST errors return JSON with an error field (string detail)"; D-022, D-023).
 */

/** An error with an HTTP status and a stable machine code, answered as `{error, code}`. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** `message` is the `error` text; `code` is stable across versions. */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400: the request's content is wrong (D-022: everything about content, limits and balances). */
export const badRequest = (message: string, code = 'INVALID_PARAMETER') => new ApiError(400, code, message);
/** 401: missing or invalid credentials (spec: "missing or invalid API key"). */
export const unauthenticated = (message: string, code = 'UNAUTHENTICATED') => new ApiError(401, code, message);
/** 403: the credential lacks the permission (spec: "the key lacks permission for the operation"). */
export const forbidden = (message: string, code = 'PERMISSION_DENIED') => new ApiError(403, code, message);
/** 404: the addressed resource does not exist. */
export const notFound = (message: string, code = 'NOT_FOUND') => new ApiError(404, code, message);
/** 409: the resource's state forbids the operation. */
export const conflict = (message: string, code: string) => new ApiError(409, code, message);
/** 422: an idempotency key reused with another body (D-046). */
export const unprocessable = (message: string, code: string) => new ApiError(422, code, message);
/** 501: an operation of the contract this server version does not implement. */
export const notImplemented = (operationId: string) =>
  new ApiError(501, 'NOT_IMPLEMENTED', `${operationId} is in the contract but not implemented by this server version`);
/** 503: a dependency (chain node, database) is unavailable. */
export const unavailable = (message: string, code = 'UNAVAILABLE') => new ApiError(503, code, message);
