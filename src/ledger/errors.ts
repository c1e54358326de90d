/**
 * Errors of the ledger (accounts, transfers, payments). The ledger names what went wrong with a stable
 * code; the HTTP edge (src/server/http/error-codes.ts) gives each code its status (D-159), so nothing here
 * knows about HTTP. The codes are those the institutional and admin contracts list (D-160).
 */
import { SvcError, type SvcErrorOptions } from '@svckit/sdk/errors';

/** The ledger's error codes. */
export const LedgerErrorCode = {
  /** A request field is malformed (D-022). */
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  /** An amount is not a positive decimal with at most 2 fraction digits (D-033). */
  INVALID_AMOUNT: 'INVALID_AMOUNT',
  /** A request names an account that does not exist. */
  UNKNOWN_ACCOUNT: 'UNKNOWN_ACCOUNT',
  /** The addressed payment does not exist. */
  NOT_FOUND: 'NOT_FOUND',
  /** A pacs.008 settles in a currency without a configured FX rate. */
  UNSUPPORTED_CURRENCY: 'UNSUPPORTED_CURRENCY',
  /** A pacs.008 with this UETR was already received. */
  DUPLICATE_UETR: 'DUPLICATE_UETR',
  /** Only a SETTLED payment can be returned. */
  NOT_SETTLED: 'NOT_SETTLED',
  /** The payment was credited outside the platform, so no account can return it. */
  CREDITOR_NOT_ON_PLATFORM: 'CREDITOR_NOT_ON_PLATFORM',
  /** The return transaction could not be broadcast or did not succeed. */
  RETURN_FAILED: 'RETURN_FAILED',
  /** The sending account is not approved. */
  ACCOUNT_NOT_APPROVED: 'ACCOUNT_NOT_APPROVED',
  /** The amount exceeds the account's single-transfer limit. */
  SINGLE_LIMIT_EXCEEDED: 'SINGLE_LIMIT_EXCEEDED',
  /** The amount exceeds what is left of the account's daily limit. */
  DAILY_LIMIT_EXCEEDED: 'DAILY_LIMIT_EXCEEDED',
  /** The amount exceeds the spendable balance. */
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  /** The recipient contract reverts the transfer. */
  TRANSFER_REVERTED: 'TRANSFER_REVERTED',
  /** The chain node refuses the transfer. */
  TRANSFER_REFUSED: 'TRANSFER_REFUSED',
  /** The ledger could not complete the operation now; the caller may retry. */
  UNAVAILABLE: 'UNAVAILABLE',
} as const;

/** One of {@link LedgerErrorCode}. */
export type LedgerErrorCode = (typeof LedgerErrorCode)[keyof typeof LedgerErrorCode];

/** An error of the ledger; `message` names the field or record, the expectation and the value received. */
export class LedgerError extends SvcError<LedgerErrorCode> {
  override name = 'LedgerError';
  /** Builds the error with its code. */
  constructor(code: LedgerErrorCode, message: string, options?: SvcErrorOptions) {
    super(code, message, options);
  }
}
