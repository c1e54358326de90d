/**
 * What the phases of one OpenAPI surface share (its contract, base, target, client, options, tallies and
 * coverage) and the steps every phase takes: the request of a case, the send, and the judging of its answer.
 */
import { eventTime } from '../../events.ts';
import type { CaseVerdict } from '../core/checks.ts';
import { securityHeaders } from '../core/checks.ts';
import type { EngineCase } from '../core/cases.ts';
import type { engineClient, WireRequest, WireResponse } from '../core/client.ts';
import { recordCoverage, type SurfaceCoverage } from '../core/coverage.ts';
import type { NamedCheck } from '../core/names.ts';
import { engineFailure, sendOrNone } from '../core/tallies.ts';
import type { AnswerTimes } from '../core/response-time.ts';
import type { CheckTally, EngineOptions, EngineTarget } from '../core/types.ts';
import type { Contract, Operation } from './contract.ts';
import { documented, evaluate } from './judges.ts';
import { recordWrite } from './write-effects.ts';

/** What one surface's phases share: its contract, base, target, client, options, tallies and coverage. */
export interface RunContext {
  contract: Contract;
  base: URL;
  target: EngineTarget;
  client: ReturnType<typeof engineClient>;
  options: EngineOptions;
  tallies: Map<string, CheckTally>;
  coverage: SurfaceCoverage;
  /** Answer times per operation, for `response_time`. */
  times: AnswerTimes;
}

/** The Authorization value the engine has for `op`: null when none is needed, undefined when none is held. */
export function credentialFor(target: EngineTarget, op: Operation): string | null | undefined {
  if (op.security.length === 0 || op.security.some((alt) => Object.keys(alt).length === 0)) return null;
  for (const alt of op.security)
    for (const scheme of Object.keys(alt)) if (target.credentials[scheme]) return target.credentials[scheme];
  return undefined;
}

/** The wire request of a case. */
export function toRequest(
  base: URL,
  op: Operation,
  c: EngineCase,
  authorization: string | null | undefined,
): WireRequest {
  let path = op.route;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const p of op.parameters) {
    const value = c.input.params[`${p.in}:${p.name}`];
    if (value === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'query') query.append(p.name, value);
    else if (p.in === 'header') headers[p.name.toLowerCase()] = value;
  }
  const url = new URL(path.replace(/^\//, ''), base);
  url.search = query.toString();
  if (c.authorization !== undefined) headers.authorization = c.authorization;
  else if (c.authenticated && authorization) headers.authorization = authorization;
  const request: WireRequest = { method: c.method, url: url.href, headers };
  if (c.input.body !== undefined) {
    headers['content-type'] = 'application/json';
    request.body = JSON.stringify(c.input.body);
  }
  return request;
}

/**
 * Records coverage (for an operation of the surface's own contract) and tallies the named checks of one
 * answer on the surface; returns the failed verdicts.
 */
export function judge(
  ctx: RunContext,
  contract: Contract,
  op: Operation,
  c: EngineCase,
  response: WireResponse,
): CaseVerdict[] {
  // A rate-limit answer the pacer gave up on (a quota whose Retry-After is beyond the run's longest wait, D-252)
  // is a pacing signal, never a verdict: the case is skipped, saying so.
  if (response.status === 429) {
    skipCase(
      ctx,
      c,
      `${op.id}: the deployment's rate limit answered 429, with a Retry-After beyond the run's longest wait`,
    );
    return [];
  }
  if (op.surface === ctx.contract.surface)
    recordCoverage(ctx.coverage, op, c, response, documented(op, response.status) !== undefined);
  const failed: CaseVerdict[] = [];
  const verdicts = [
    ...evaluate(contract, op, c, response, undefined, ctx.options.expectedStatuses),
    ...securityHeaders(ctx, ctx.base, response),
  ].filter((v) => ctx.tallies.has(`${ctx.contract.surface}:${v.check}`));
  ctx.options.events?.({
    type: 'answer_judged',
    at: eventTime(Date.now()),
    surface: ctx.contract.surface,
    operation: op.id,
    status: response.status,
    verdicts: verdicts.map((v) => ({
      check: `generated.${v.check}`,
      ok: v.ok,
      ...(v.message ? { message: v.message } : {}),
    })),
  });
  for (const v of verdicts) {
    const tally = ctx.tallies.get(`${ctx.contract.surface}:${v.check}`);
    if (!tally) continue;
    if (v.ok) tally.passed += 1;
    else {
      tally.failed += 1;
      failed.push(v);
    }
  }
  return failed;
}

/** Keeps a failure in its tally, up to the run's limit per surface and check. */
export function keepFailure(
  ctx: RunContext,
  v: CaseVerdict,
  c: EngineCase,
  request: WireRequest,
  response: WireResponse,
): void {
  const tally = ctx.tallies.get(`${ctx.contract.surface}:${v.check}`);
  if (tally && tally.failures.length < (ctx.options.maxFailures ?? 20))
    tally.failures.push(engineFailure(v.check, v.message ?? '', c, request, response, false));
}

/** Sends a request; a cut connection or a timeout is an answer of status 0. */
export async function sendSafely(ctx: RunContext, request: WireRequest): Promise<WireResponse> {
  let response = await sendOrNone(ctx.client, request);
  const renewed = await renewedRequest(ctx, request, response);
  if (renewed) response = await sendOrNone(ctx.client, renewed);
  recordWrite(ctx.target, renewed ?? request, response); // D-235: what a 2xx write changed is put back when the run ends
  return response;
}

/**
 * The request again with a renewed credential, when the deployment answered its credential expired (401
 * TOKEN_EXPIRED) and the run can make that credential afresh (a wallet session, D-005); else undefined. A
 * credential a case chose itself (a wrong one, a key a sequence made) is never renewed.
 */
async function renewedRequest(
  ctx: RunContext,
  request: WireRequest,
  response: WireResponse,
): Promise<WireRequest | undefined> {
  if (response.status !== 401 || (response.json as { code?: unknown } | undefined)?.code !== 'TOKEN_EXPIRED')
    return undefined;
  const sent = request.headers.authorization;
  if (sent === undefined) return undefined;
  for (const renew of Object.values(ctx.target.renew ?? {})) {
    const fresh: string | undefined = await renew?.(sent);
    if (fresh !== undefined && fresh !== sent)
      return { ...request, headers: { ...request.headers, authorization: fresh } };
  }
  return undefined;
}

export function skipCase(ctx: RunContext, c: EngineCase, reason: string): void {
  const check: NamedCheck =
    c.kind === 'negative'
      ? 'negative_data_rejection'
      : c.kind === 'positive'
        ? 'positive_data_acceptance'
        : 'missing_required_header';
  const tally = ctx.tallies.get(`${c.surface}:${check}`);
  if (!tally) return;
  tally.skipped += 1;
  if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
}
