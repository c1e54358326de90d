/**
 * JSON-RPC error objects (D-023: the JSON-RPC 2.0 error object with the EIP-1474 and Besu codes the chain
 * contract lists in components/errors).
 */
import { chainRpcErrorCodes } from '@svckit/sdk/chain';
import type { RpcErrorObject } from '../../node/upstream.ts';
import { SvcError } from '@svckit/sdk/errors';

type ErrorName = keyof typeof chainRpcErrorCodes;

const MESSAGES: Record<ErrorName, string> = {
  ParseError: 'Parse error',
  InvalidRequest: 'Invalid Request',
  MethodNotFound: 'Method not found',
  InvalidParams: 'Invalid params',
  InternalError: 'Internal error',
  MethodNotEnabled: 'Method not enabled',
  InvalidInput: 'Invalid input',
  ExecutionReverted: 'Execution reverted',
  ResourceNotFound: 'Resource not found',
  ResourceUnavailable: 'Resource unavailable',
  TransactionRejected: 'Transaction rejected',
  MethodNotSupported: 'Method not supported',
  LimitExceeded: 'limit exceeded',
  JsonRpcVersionNotSupported: 'JSON-RPC version not supported',
  SenderNotAuthorized: 'Sender account not authorized to send transactions',
  // D-256: Besu's answer to an unknown or expired filter id.
  FilterNotFound: 'Filter not found',
};

/** A failure to answer with a JSON-RPC error object; `detail` goes in `data` so the message stays standard. */
export class JsonRpcFailure extends SvcError<number> {
  override name = 'JsonRpcFailure';
  /** Creates the error named in the contract, with an optional human-readable detail. */
  constructor(
    readonly kind: ErrorName,
    readonly detail?: string,
  ) {
    super(chainRpcErrorCodes[kind], detail ? `${MESSAGES[kind]}: ${detail}` : MESSAGES[kind]);
  }

  /** The JSON-RPC error object: the contract's message (components/errors), the detail in `data`. */
  toObject(): RpcErrorObject {
    return { code: this.code, message: MESSAGES[this.kind], ...(this.detail ? { data: this.detail } : {}) };
  }
}
