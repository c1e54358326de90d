/**
 * The chain surface of the engine: the JSON-RPC cases of every method (examples, coverage, fuzz) sent to
 * the target's JSON-RPC endpoint, judged by the named checks of rpc-checks.ts, fuzz failures shrunk by
 * fast-check, and coverage of methods, methods × documented error codes, and params.
 */
import { engineFailure, openTallies, sendOrNone } from '../core/tallies.ts';
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import type { Phase } from '../core/cases.ts';
import { securityHeaders } from '../core/checks.ts';
import type { NamedCheck } from '../core/names.ts';
import type { AnswerTimes } from '../core/response-time.ts';
import { eventTime } from '../../events.ts';
import { type EngineClient, pooled, type WireRequest, type WireResponse } from '../core/client.ts';
import type { SurfaceCoverage } from '../core/coverage.ts';
import {
  CHAIN_SURFACE,
  loadRpcContract,
  type RpcCase,
  type RpcContract,
  type RpcMethod,
  rpcCase,
  rpcFuzzArbitrary,
  rpcInputs,
} from './contract.ts';
import { blockNumberOf } from '../../../src/server/chain/keywords.ts';
import type { CaseVerdict } from '../core/checks.ts';
import { blockRangeParams, evaluateRpc, INVALID_PARAMS, rpcErrorOf } from './judges.ts';
import type { CheckTally, EngineFailure, EngineOptions, PhaseTiming } from '../core/types.ts';

/** Coverage of the chain contract before any case: methods, `method result` / `method code`, `method param:name`. */
export function emptyRpcCoverage(contract: RpcContract): SurfaceCoverage {
  const cov: SurfaceCoverage = { operations: {}, responses: {}, parameters: {} };
  for (const m of contract.methods) {
    cov.operations[m.name] = false;
    cov.responses[`${m.name} result`] = false;
    for (const e of m.errors) cov.responses[`${m.name} ${e.code}`] = false;
    for (const p of m.params) cov.parameters[`${m.name} param:${p.name}`] = false;
  }
  return cov;
}

/** Records one answered case: the method is covered by a result or one of its documented error codes. */
export function recordRpcCoverage(cov: SurfaceCoverage, method: RpcMethod, c: RpcCase, res: WireResponse): void {
  if (res.status === 0) return;
  const error = rpcErrorOf(res);
  const hasResult = typeof res.json === 'object' && res.json !== null && 'result' in res.json;
  const key = error ? `${method.name} ${String(error.code)}` : hasResult ? `${method.name} result` : undefined;
  if (key && key in cov.responses) {
    cov.responses[key] = true;
    cov.operations[method.name] = true;
  }
  const params = ((c.input.body as { params?: unknown[] }).params ?? []).length;
  method.params.slice(0, params).forEach((p) => {
    cov.parameters[`${method.name} param:${p.name}`] = true;
  });
}

/** What the chain surface needs from the run. */
export interface RpcRun {
  rpc: URL;
  client: EngineClient;
  options: EngineOptions;
  specsDir: string;
  tallies: Map<string, CheckTally>;
  /** Answer times per method, for `response_time`. */
  times: AnswerTimes;
}

/** Runs every phase of the chain surface; returns its coverage, timings and request count. */
export async function runRpcSurface(
  run: RpcRun,
): Promise<{ coverage: SurfaceCoverage; timings: PhaseTiming[]; requests: number }> {
  const contract = loadRpcContract(run.specsDir);
  openTallies(run.tallies, CHAIN_SURFACE, run.options);
  const coverage = emptyRpcCoverage(contract);
  const timings: PhaseTiming[] = [];
  let requests = 0;
  for (const phase of run.options.phases) {
    if (run.options.signal?.aborted) break;
    const t0 = performance.now();
    const sent = await runRpcPhase(run, contract, coverage, phase);
    requests += sent;
    timings.push({ surface: CHAIN_SURFACE, phase, requests: sent, ms: Math.round(performance.now() - t0) });
  }
  return { coverage, timings, requests };
}

const maxFailures = (run: RpcRun) => run.options.maxFailures ?? 20;

async function runRpcPhase(
  run: RpcRun,
  contract: RpcContract,
  coverage: SurfaceCoverage,
  phase: Phase,
): Promise<number> {
  const work: { method: RpcMethod; c: RpcCase }[] = [];
  contract.methods.forEach((method, i) => {
    rpcInputs(method, phase, run.options.seed + i, run.options.maxExamples).forEach((input, n) => {
      work.push({ method, c: rpcCase(method, phase, input, n + 1) });
    });
  });
  const firstFailure = new Map<string, { method: RpcMethod; c: RpcCase; check: NamedCheck }>();
  let uninstalls = 0;
  await pooled(work, run.options.concurrency ?? 16, async ({ method, c }) => {
    if (run.options.signal?.aborted) return;
    const request = wireOf(run.rpc, c);
    const response = await send(run, request);
    uninstalls += await putBack(run, method, response);
    if (response.durationMs !== undefined) run.times.add(CHAIN_SURFACE, method.name, response.durationMs);
    recordRpcCoverage(coverage, method, c, response);
    const verdicts = (await judge(run, contract, method, c, response)).filter((v) =>
      run.tallies.has(`${CHAIN_SURFACE}:${v.check}`),
    );
    run.options.events?.({
      type: 'answer_judged',
      at: eventTime(Date.now()),
      surface: CHAIN_SURFACE,
      operation: method.name,
      status: response.status,
      verdicts: verdicts.map((v) => ({
        check: `generated.${v.check}`,
        ok: v.ok,
        ...(v.message ? { message: v.message } : {}),
      })),
    });
    for (const v of verdicts) {
      const tally = run.tallies.get(`${CHAIN_SURFACE}:${v.check}`);
      if (!tally) continue;
      if (v.ok) {
        tally.passed += 1;
        continue;
      }
      tally.failed += 1;
      const key = `${method.name}:${v.check}`;
      if (phase === 'fuzz' && !firstFailure.has(key)) firstFailure.set(key, { method, c, check: v.check });
      else if (tally.failures.length < maxFailures(run))
        tally.failures.push(engineFailure(v.check, v.message ?? '', c, request, response, false));
    }
  });
  // fast-check shrinks the first fuzz failure of each method and check to a minimal case.
  let extra = 0;
  for (const { method, c, check } of firstFailure.values()) {
    const shrunk = await shrinkRpc(run, contract, method, c, check);
    extra += shrunk.requests;
    const tally = run.tallies.get(`${CHAIN_SURFACE}:${check}`);
    if (tally && tally.failures.length < maxFailures(run)) tally.failures.unshift(shrunk.failure);
  }
  return work.length + extra + uninstalls;
}

/** D-256: the methods whose result is a filter the node keeps for the client. */
const FILTER_MAKERS = new Set(['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter']);

/**
 * D-235, D-256: a filter a case made is uninstalled at once, so the run leaves none behind and stays within the
 * node's filters per client IP. Returns the requests it sent (0 or 1); the answer is not judged.
 */
async function putBack(run: RpcRun, method: RpcMethod, response: WireResponse): Promise<number> {
  const id = (response.json as { result?: unknown } | undefined)?.result;
  if (!FILTER_MAKERS.has(method.name) || typeof id !== 'string') return 0;
  await send(run, rpcPost(run.rpc, { jsonrpc: '2.0', id: 0, method: 'eth_uninstallFilter', params: [id] }));
  return 1;
}

/**
 * The verdicts on one answer. Valid params refused with -32602 by a method whose filter carries
 * `x-block-range` (D-197) are judged against the chain's head, read right after the answer: a block number
 * past it is refused by the contract's own rule (the head only grows, so a later read is an upper bound).
 */
async function judge(
  run: RpcRun,
  contract: RpcContract,
  method: RpcMethod,
  c: RpcCase,
  response: WireResponse,
): Promise<CaseVerdict[]> {
  const refusedValid = c.kind === 'positive' && rpcErrorOf(response)?.code === INVALID_PARAMS;
  const head = refusedValid && blockRangeParams(method).length > 0 ? await headOf(run) : undefined;
  return [
    ...evaluateRpc(contract, method, c, response, head),
    ...securityHeaders({ tallies: run.tallies, surface: CHAIN_SURFACE }, run.rpc, response),
  ];
}

/** The chain's head by eth_blockNumber, or undefined when the answer is not a block number. */
async function headOf(run: RpcRun): Promise<bigint | undefined> {
  const response = await send(run, rpcPost(run.rpc, { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }));
  return blockNumberOf((response.json as { result?: unknown } | undefined)?.result);
}

/** The wire request of a chain case: `POST {rpc}` with the JSON-RPC body. */
export function wireOf(rpc: URL, c: RpcCase): WireRequest {
  return rpcPost(rpc, c.input.body);
}

/** `POST {rpc}` with a JSON-RPC body. */
function rpcPost(rpc: URL, body: unknown): WireRequest {
  return {
    method: 'POST',
    url: rpc.href,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

const send = (run: RpcRun, request: WireRequest) => sendOrNone(run.client, request);

/** Re-runs the method's fuzz property from the run's seed and lets fast-check shrink a failure of `check`. */
async function shrinkRpc(
  run: RpcRun,
  contract: RpcContract,
  method: RpcMethod,
  failing: RpcCase,
  check: NamedCheck,
): Promise<{ failure: EngineFailure; requests: number }> {
  let requests = 0;
  const id = (failing.input.body as { id: number }).id;
  const property = fc.asyncProperty(rpcFuzzArbitrary(method), async (input) => {
    const c = rpcCase(method, 'fuzz', input, id);
    const response = await send(run, wireOf(run.rpc, c));
    requests += 1 + (await putBack(run, method, response));
    return !(await judge(run, contract, method, c, response)).some((x) => x.check === check && !x.ok);
  });
  const details = await fc.check(property, {
    seed: run.options.seed,
    numRuns: run.options.maxExamples,
    interruptAfterTimeLimit: run.options.shrinkMs ?? 20_000,
    markInterruptAsFailure: false,
  });
  const minimal = details.failed ? details.counterexample?.[0] : undefined;
  const c = minimal ? rpcCase(method, 'fuzz', minimal, id) : failing;
  const request = wireOf(run.rpc, c);
  const response = await send(run, request);
  requests += await putBack(run, method, response);
  const verdict = (await judge(run, contract, method, c, response)).find((x) => x.check === check && !x.ok);
  return {
    failure: engineFailure(
      check,
      verdict?.message ?? 'failed once, then passed when sent again',
      c,
      request,
      response,
      minimal !== undefined && details.numShrinks > 0,
    ),
    requests: requests + 1,
  };
}
