/**
 * The one base class of every error svckit throws, in the spirit of viem's `BaseError`: a stable machine
 * `code`, a short human-readable message, optional structured `details` and the `cause` it wraps. Each
 * layer names its own codes (the ledger in src/ledger/errors.ts, the crypto façade in src/crypto/errors.ts,
 * the REST edge in src/server/http/errors.ts); only the HTTP edge turns a code into a status (D-159).
 */

/** Optional parts of an {@link SvcError}. */
export type SvcErrorOptions = {
  /** Structured facts about the failure (e.g. the request field it concerns), never secrets. */
  details?: Readonly<Record<string, unknown>>;
  /** The error this one wraps. */
  cause?: unknown;
};

/** Base of every svckit error: `code` is stable across versions, `message` says what was expected and got. */
export class SvcError<Code extends string | number = string> extends Error {
  override name: string = 'SvcError';
  /** Stable machine code. */
  readonly code: Code;
  /** Structured facts about the failure, when there are any (an own property only then). */
  declare readonly details?: Readonly<Record<string, unknown>>;

  /** Builds the error with its stable code and short message. */
  constructor(code: Code, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
  }
}
