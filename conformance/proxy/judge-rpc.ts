/**
 * The proxy's judges on an exchange of the chain's `/rpc` (D-249, D-193): each call of the request (one object
 * or a batch) is held to its method's params (the client's mistakes) and its answer — the batch's element with
 * the same id — to the contract with `evaluateRpc`, as the engine judges its chain cases. A notification (no
 * id) gets no answer and is judged only for its params.
 */
import type { WireResponse } from '../engine/core/client.ts';
import type { NamedCheck } from '../engine/core/names.ts';
import {
  CHAIN_SURFACE,
  paramsErrors,
  type RpcCase,
  type RpcContract,
  type RpcMethod,
} from '../engine/openrpc/contract.ts';
import { evaluateRpc } from '../engine/openrpc/judges.ts';
import type { ClientFinding, Judgement, ProxiedExchange, ProxyVerdict } from './exchange.ts';
import { shortValue } from './exchange.ts';

/** The generated checks the proxy judges a JSON-RPC answer by (`positive_data_acceptance` left out, D-249). */
export const RPC_PROXY_CHECKS: readonly NamedCheck[] = [
  'not_a_server_error',
  'response_schema_conformance',
  'jsonrpc_error_codes',
  'negative_data_rejection',
];

type Call = Record<string, unknown>;

const isObject = (v: unknown): v is Call => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Judges one exchange of `/rpc`: one judgement per call of the request. */
export function judgeRpc(contract: RpcContract, exchange: ProxiedExchange): Judgement[] {
  const res = exchange.response;
  const base = (operation: string, client: ClientFinding[], c: RpcCase): Judgement => ({
    surface: CHAIN_SURFACE,
    operation,
    client,
    verdicts: [],
    case: c,
  });
  const caseOf = (method: string, kind: RpcCase['kind'], body: unknown): RpcCase => ({
    surface: CHAIN_SURFACE,
    operation: method,
    phase: 'examples',
    kind,
    reason: `proxied exchange ${exchange.n}`,
    input: { params: {}, body },
    method: 'POST',
    authenticated: false,
  });
  let parsed: unknown;
  try {
    parsed = exchange.requestCut ? undefined : JSON.parse(exchange.request.body ?? '');
  } catch {
    parsed = undefined;
  }
  if (
    parsed === undefined ||
    (Array.isArray(parsed) && parsed.length === 0) ||
    !(isObject(parsed) || Array.isArray(parsed))
  ) {
    // Not a JSON-RPC request the proxy can read (or cut at the bound): the answer is judged for 5xx alone.
    const j = base(
      'POST /rpc',
      exchange.requestCut ? [] : [{ operation: 'POST /rpc', pointer: '/body', message: 'not a JSON-RPC request' }],
      caseOf('POST /rpc', 'negative', undefined),
    );
    if (!exchange.responseCut) j.verdicts = [serverError(res)];
    return [j];
  }
  const batch = Array.isArray(parsed);
  const calls = batch ? (parsed as unknown[]) : [parsed];
  const answers = batch && Array.isArray(res.json) ? (res.json as unknown[]) : undefined;
  return calls.map((call, index) => {
    const at = batch ? `/body/${index}` : '/body';
    const name = isObject(call) && typeof call.method === 'string' ? call.method : undefined;
    const method = contract.methods.find((m) => m.name === name);
    const findings = method && isObject(call) ? callFindings(method, call, at) : [];
    if (!method)
      findings.push({
        operation: name ?? 'POST /rpc',
        pointer: `${at}/method`,
        message: name ? `${name} is no method of the chain contract` : 'no "method" string',
      });
    const c = caseOf(name ?? 'POST /rpc', findings.length ? 'negative' : 'positive', call);
    const j = base(name ?? 'POST /rpc', findings, c);
    if (exchange.responseCut) return { ...j, notJudged: 'the answer body is over the bound (D-250)' };
    const notification = isObject(call) && !('id' in call);
    if (!method || notification) {
      if (!notification) j.verdicts = [serverError(res)];
      return j;
    }
    // The call's own answer: the whole body for one call, the batch's element with the same id for a batch.
    const own = batch ? answers?.find((a) => isObject(a) && isObject(call) && a.id === call.id) : res.json;
    const single: WireResponse = { ...res, json: own, text: own === undefined ? res.text : JSON.stringify(own) };
    const answerAt = batch ? `/body/${answers && own !== undefined ? answers.indexOf(own) : index}` : '/body';
    j.verdicts = evaluateRpc(contract, method, c, single)
      // "The HTTP status is 200 except for rate limiting, which answers HTTP 429 with error -32005 (D-024), and a
      // Content-Type other than application/json, which answers HTTP 415 with error -32600 (D-202)".
      .filter(
        (v) =>
          RPC_PROXY_CHECKS.includes(v.check) &&
          !(v.check === 'response_schema_conformance' && allowedStatus(res.status, own)),
      )
      .map((v): ProxyVerdict => {
        if (v.ok) return { check: v.check, ok: true, pointer: '' };
        const error = isObject(own) && isObject(own.error) ? own.error : undefined;
        const onCode = v.check === 'jsonrpc_error_codes' && error;
        const out: ProxyVerdict = {
          check: v.check,
          ok: false,
          message: v.message ?? '',
          pointer: v.check === 'not_a_server_error' ? '/status' : onCode ? `${answerAt}/error/code` : answerAt,
        };
        const value = shortValue(v.check === 'not_a_server_error' ? res.status : onCode ? error.code : own);
        if (value !== undefined) out.value = value;
        return out;
      });
    return j;
  });
}

/** A status the chain contract allows besides 200, with its error code (D-024, D-202). */
function allowedStatus(status: number, answer: unknown): boolean {
  const code = isObject(answer) && isObject(answer.error) ? answer.error.code : undefined;
  return (status === 429 && code === -32005) || (status === 415 && code === -32600);
}

/** `not_a_server_error` on an answer the proxy cannot pair with a call. */
function serverError(res: WireResponse): ProxyVerdict {
  return res.status >= 500 || res.status === 0
    ? {
        check: 'not_a_server_error',
        ok: false,
        message: `HTTP ${res.status}: ${res.text.slice(0, 200)}`,
        pointer: '/status',
        value: String(res.status),
      }
    : { check: 'not_a_server_error', ok: true, pointer: '' };
}

/** The mistakes of one call: its params against the method's (positional, D-023). */
function callFindings(method: RpcMethod, call: Call, at: string): ClientFinding[] {
  const finding = (pointer: string, message: string): ClientFinding => ({ operation: method.name, pointer, message });
  if (call.jsonrpc !== '2.0') return [finding(`${at}/jsonrpc`, `"jsonrpc" expected "2.0"`)];
  const params = call.params ?? [];
  if (!Array.isArray(params)) return [finding(`${at}/params`, 'params expected an array (by position)')];
  return paramsErrors(method, params).map((message) => finding(`${at}/params`, message));
}
