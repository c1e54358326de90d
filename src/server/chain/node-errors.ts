/**
 * The node's error objects as the contract states them (D-197). The node behind the gateway (Anvil) answers
 * these conditions with codes the contract does not give them:
 * - a state read at a block number past its head: -32602 `BlockOutOfRangeError`, although that block is
 *   valid params on a chain that will reach it; the gateway answers -32001 Resource not found, as the node
 *   already answers for an unknown block hash. eth_getLogs keeps -32602, the answer of the execution-apis
 *   fixture `filter-error-future-block-range` (the filter's `x-block-range`), with the head named; its
 *   -32000 `unknown block` for an unknown `blockHash` is -32001 too;
 * - a call or estimate that reverts: code 3 (Geth's revert code); the gateway answers -32000 Execution
 *   reverted with the revert data unchanged in `data`;
 * - a call or estimate whose code halts (stack underflow, an invalid opcode): -32603 `EVM error …`, an
 *   internal error for what is the called code's failure; the gateway answers -32000 Invalid input, naming
 *   the halt.
 * Every other error object is relayed unchanged.
 */
import type { RpcErrorObject, RpcResponse } from '../../node/upstream.ts';
import { JsonRpcFailure } from './errors.ts';

/** Anvil's text for a block number past the head: "block height is H but requested was N". */
const OUT_OF_RANGE = /^BlockOutOfRangeError: block height is (\d+) but requested was (\d+)/;
/** Anvil's text for an exceptional halt of the EVM. */
const EVM_HALT = /^EVM error (\w+)/;
/** Geth's and Anvil's code for a revert, with the revert data in `data`. */
const REVERT_CODE = 3;

const hex = (n: string) => `0x${BigInt(n).toString(16)}`;

/** The error object the gateway answers for one the node returned to `method`. */
export function contractError(method: string, error: RpcErrorObject): RpcErrorObject {
  const message = typeof error.message === 'string' ? error.message : '';
  if (error.code === REVERT_CODE) {
    const reverted = new JsonRpcFailure('ExecutionReverted').toObject();
    return error.data === undefined ? reverted : { ...reverted, data: error.data };
  }
  const range = error.code === -32602 ? OUT_OF_RANGE.exec(message) : null;
  if (range) {
    const detail = `block ${hex(range[2]!)} is past the head ${hex(range[1]!)}`;
    return method === 'eth_getLogs'
      ? new JsonRpcFailure('InvalidParams', `block range extends beyond the head: ${detail}`).toObject()
      : new JsonRpcFailure('ResourceNotFound', detail).toObject();
  }
  if (method === 'eth_getLogs' && error.code === -32000 && message === 'unknown block')
    return new JsonRpcFailure('ResourceNotFound', "the filter's blockHash names no block").toObject();
  const halt = error.code === -32603 ? EVM_HALT.exec(message) : null;
  if (halt) return new JsonRpcFailure('InvalidInput', `the EVM halted: ${halt[1]}`).toObject();
  return error;
}

/**
 * D-258: block lookups whose answer for an unknown block is null (execution-apis `notFound`, as Besu answers):
 * Anvil refuses a block number past its head with -32602 there, and an unknown hash with -32001.
 */
const NULL_FOR_UNKNOWN_BLOCK = new Set([
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
]);

/** A relayed response to `method` with its error object, if any, as the contract states it. */
export function fromNode(method: string, response: RpcResponse): RpcResponse {
  if (!response.error) return response;
  const error = contractError(method, response.error);
  if (NULL_FOR_UNKNOWN_BLOCK.has(method) && error.code === -32001) {
    const { error: _unknown, ...rest } = response;
    return { ...rest, result: null };
  }
  return { ...response, error };
}
