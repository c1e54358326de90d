/**
 * The named checks on a JSON-RPC answer (D-193): the envelope and result against the method's result schema
 * (`response_schema_conformance`), every error object's code against the contract and the standard codes
 * (`jsonrpc_error_codes`), no HTTP 5xx and no -32603 for bad input (`not_a_server_error`), invalid params
 * refused with -32602 (`negative_data_rejection`), valid params answered with a result or an error the
 * method documents that depends on state (`positive_data_acceptance`).
 */
import type { CaseVerdict } from '../core/checks.ts';
import type { NamedCheck } from '../core/names.ts';
import type { WireResponse } from '../core/client.ts';
import { BLOCK_RANGE_KEYWORD, blockNumberOf } from '../../../src/server/chain/keywords.ts';
import { describeErrors } from '../core/ajv.ts';
import {
  STATE_CODES,
  type RpcCase,
  type RpcContract,
  type RpcMethod,
  rpcSchemaErrors,
  STANDARD_CODES,
} from './contract.ts';

/** JSON-RPC 2.0 "Invalid params" (D-023). */
export const INVALID_PARAMS = -32602;
/** JSON-RPC 2.0 "Internal error" (D-023). */
export const INTERNAL_ERROR = -32603;

type RpcError = { code?: unknown; message?: unknown; data?: unknown };

/** The error object of an answer, if it is one. */
export function rpcErrorOf(res: WireResponse): RpcError | undefined {
  const body = res.json as { error?: RpcError } | undefined;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && typeof body.error === 'object'
    ? (body.error ?? undefined)
    : undefined;
}

/** The params of `method` whose schema carries `x-block-range` (D-197), with the member names it lists. */
export function blockRangeParams(method: RpcMethod): { index: number; members: string[] }[] {
  return method.params.flatMap((p, index) => {
    const members = p.schema[BLOCK_RANGE_KEYWORD];
    return Array.isArray(members) ? [{ index, members: members as string[] }] : [];
  });
}

/** True when a block number named under `x-block-range` in the case's params lies past `head`. */
function pastHead(method: RpcMethod, c: RpcCase, head: bigint | undefined): boolean {
  if (head === undefined) return false;
  const params = (c.input.body as { params?: unknown[] }).params ?? [];
  return blockRangeParams(method).some(({ index, members }) =>
    members.some((m) => (blockNumberOf((params[index] as Record<string, unknown> | undefined)?.[m]) ?? -1n) > head),
  );
}

/**
 * Every verdict of the named checks on one JSON-RPC answer. `head`, when given, is the chain's head read
 * after the answer: valid params refused with -32602 for a block past it follow the method's
 * `x-block-range` (D-197).
 */
export function evaluateRpc(
  contract: RpcContract,
  method: RpcMethod,
  c: RpcCase,
  res: WireResponse,
  head?: bigint,
): CaseVerdict[] {
  const out: CaseVerdict[] = [];
  const verdict = (check: NamedCheck, problem: string | undefined) =>
    out.push(problem ? { check, ok: false, message: problem } : { check, ok: true });
  const error = rpcErrorOf(res);
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const what = `${method.name} (${c.reason})`;
  verdict(
    'not_a_server_error',
    res.status >= 500 || res.status === 0
      ? `HTTP ${res.status}: ${res.text.slice(0, 200)}`
      : c.kind === 'negative' && code === INTERNAL_ERROR
        ? `${what}: -32603 Internal error for invalid params, expected -32602`
        : undefined,
  );
  if (res.status === 0) return out;
  verdict('response_schema_conformance', envelopeProblem(contract, method, c, res));
  if (error) {
    const known = contract.errors.some((e) => e.code === code) || (code !== undefined && STANDARD_CODES.has(code));
    verdict(
      'jsonrpc_error_codes',
      !known
        ? `${what}: error code ${JSON.stringify(error.code)} is neither in components/errors nor a JSON-RPC/EIP-1474 code`
        : c.kind === 'negative' && code !== INVALID_PARAMS
          ? `${what}: invalid params answered ${code} ${JSON.stringify(error.message)}, expected -32602`
          : undefined,
    );
  }
  if (c.kind === 'negative')
    verdict(
      'negative_data_rejection',
      error
        ? code === INVALID_PARAMS
          ? undefined
          : `${what}: error ${code} ${JSON.stringify(error.message)}, expected -32602 Invalid params`
        : `${what}: invalid params got a result: ${res.text.slice(0, 200)}`,
    );
  if (c.kind === 'positive')
    verdict(
      'positive_data_acceptance',
      !error
        ? res.json !== undefined && typeof res.json === 'object' && res.json !== null && 'result' in res.json
          ? undefined
          : `${what}: HTTP ${res.status}, neither a result nor an error: ${res.text.slice(0, 200)}`
        : (code !== undefined && STATE_CODES.has(code) && method.errors.some((e) => e.code === code)) ||
            (code === INVALID_PARAMS && pastHead(method, c, head))
          ? undefined
          : code === -32601
            ? `${what}: the node lacks ${method.name} (-32601 ${JSON.stringify(error.message)})`
            : code !== undefined && STATE_CODES.has(code)
              ? `${what}: error ${code} ${JSON.stringify(error.message)} is not among the method's documented errors`
              : `${what}: valid params answered ${code} ${JSON.stringify(error.message)}`,
    );
  return out;
}

/** What is wrong with the answer's envelope, error object or result, or undefined. */
function envelopeProblem(contract: RpcContract, method: RpcMethod, c: RpcCase, res: WireResponse): string | undefined {
  if (res.status !== 200) return `HTTP ${res.status}, expected 200 for a JSON-RPC answer (D-023)`;
  const body = res.json as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `expected one JSON-RPC response object, got ${res.text.slice(0, 200)}`;
  if (body.jsonrpc !== '2.0') return `"jsonrpc" expected "2.0", got ${JSON.stringify(body.jsonrpc)}`;
  const id = (c.input.body as { id?: unknown }).id;
  if (body.id !== id) return `"id" expected ${JSON.stringify(id)}, got ${JSON.stringify(body.id)}`;
  if ('result' in body === 'error' in body) return 'expected exactly one of "result" and "error"';
  if ('error' in body) {
    const errors = rpcSchemaErrors(contract.errorSchema, body.error);
    return errors.length ? `error object: ${describeErrors(errors)}` : undefined;
  }
  const errors = rpcSchemaErrors(method.result, body.result);
  return errors.length ? `${method.name} result: ${describeErrors(errors)}` : undefined;
}
