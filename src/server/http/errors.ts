/**
 * The error the REST handlers throw (house rule 3): a code of the contracts (D-160) and the `error` text;
 * the one handler (error-handler.ts) answers it with the status the edge table gives (error-codes.ts,
 * D-159) in the surfaces' shape `{error, code}` (spec: "All institutional REST errors return JSON with an
 * error field (string detail)"; D-022, D-023).
 */
import { SvcError, type SvcErrorOptions } from '@svckit/sdk/errors';
import { ErrorCode } from './error-codes.ts';

export { ErrorCode } from './error-codes.ts';

/** Optional parts of a {@link RestError}: response headers (e.g. Retry-After) besides details and cause. */
export type RestErrorOptions = SvcErrorOptions & { headers?: Readonly<Record<string, string>> };

/** An error answered as `{error: message, code}` with the status of its code. */
export class RestError extends SvcError<ErrorCode> {
  override name = 'RestError';
  /** Headers sent with the error response. */
  readonly headers: Readonly<Record<string, string>>;
  /** Builds the error; `message` is the `error` text, naming the field, the expectation and the value received. */
  constructor(code: ErrorCode, message: string, options: RestErrorOptions = {}) {
    const { headers = {}, ...rest } = options;
    super(code, message, rest);
    this.headers = headers;
  }
}

/** NOT_IMPLEMENTED: an operation of the contract this server version does not implement. */
export const notImplemented = (operationId: string) =>
  new RestError(
    ErrorCode.NOT_IMPLEMENTED,
    `${operationId} is in the contract but not implemented by this server version`,
  );
