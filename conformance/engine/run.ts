/**
 * The engine: derives cases from the OpenAPI contracts phase by phase, sends them through a pooled client,
 * applies the named checks to every answer, shrinks fuzz failures with fast-check, and tallies results and
 * coverage per surface.
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { SPECS_DIR } from '../../src/paths.ts';
import {
  type CaseInput,
  type EngineCase,
  exampleInputs,
  type FuzzInput,
  fuzzArbitrary,
  inputArbitrary,
  inputVariants,
  type Phase,
  wire,
} from './cases.ts';
import { engineClient, pooled, type WireRequest, type WireResponse } from './client.ts';
import { type Contract, ENGINE_SURFACES, type EngineSurface, loadContract, type Operation } from './contract.ts';
import {
  type CheckVerdict,
  documented,
  evaluate,
  NAMED_CHECKS,
  type NamedCheck,
  securityHeaders,
  tlsHybridGroup,
} from './checks.ts';
import { schemaErrors } from './ajv.ts';
import { emptyCoverage, type SurfaceCoverage, recordCoverage } from './coverage.ts';
import { CHAIN_SURFACE, type RpcCase } from './rpc.ts';
import { runStateful } from './stateful.ts';
import { selected } from './registry.ts';
import { AnswerTimes, judgeResponseTimes, type ResponseTimeBounds } from './response-time.ts';
import { type EventSink, eventTime } from '../events.ts';
import { mayChange, recordWrite, type WriteScope } from './write-effects.ts';

/** A surface of the engine's results: an OpenAPI contract's, or the chain JSON-RPC contract's. */
export type ResultSurface = EngineSurface | typeof CHAIN_SURFACE;
import type { DocumentCase, DocumentCheck, DocumentSurface } from './documents.ts';
import { asCheckTallies, runDocumentSurface } from './documents-run.ts';

/** Where each surface is served and which Authorization values the engine may send. */
export interface EngineTarget {
  /** Absolute base URL of each surface's contract paths (e.g. `https://host/wallet/api/v1/`). */
  bases: Partial<Record<EngineSurface, URL>>;
  /** Authorization header value per security scheme name (`bearerKey`, `adminToken`...). */
  credentials: Record<string, string>;
  /** PEM of an extra CA to trust. */
  caCert?: string;
  /** Why the target keeps no state (the mocks): its stateful sequences are skipped with this reason. */
  stateless?: string;
  /** The chain JSON-RPC endpoint (`{base_url}/rpc`, or a bare node, D-192): the chain surface's cases go there. */
  rpc?: URL;
  /** {site_url}: an origin whose TLS group is checked too (`tls_hybrid_group`). */
  site?: URL;
  /** Where the run's writes are recorded to be put back, and whether the target is a deployment (D-235). */
  writes?: WriteScope;
}

/** Options of {@link runEngine}. */
export interface EngineOptions {
  phases: readonly Phase[];
  /** fast-check seed: the same seed, contracts and target give the same cases. */
  seed: number;
  /** Fuzz cases per operation. */
  maxExamples: number;
  /** Surfaces to run (default: every surface the target has a base for, and chain when it has an rpc endpoint). */
  surfaces?: readonly ResultSurface[];
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Directory of the contracts (default: the repository's specs/). */
  specsDir?: string;
  /** Kept failures per surface and check (default 20). */
  maxFailures?: number;
  /** Time limit of one shrink (ms, default 20,000). */
  shrinkMs?: number;
  /** Document surfaces judged in process (`webhooks`, `evidence`; default none, the command runs both). */
  documents?: readonly DocumentSurface[];
  /** The generated checks to tally, by name (default: all); the others judge nothing and are not reported (D-232). */
  checks?: ReadonlySet<string>;
  /** Ends the run early: no further case is sent. */
  signal?: AbortSignal;
  /** Where each judged answer is reported (the run's event stream). */
  events?: EventSink;
  /** The bounds of `response_time` (`checks["generated.response_time"]` of --config). */
  responseTime?: ResponseTimeBounds;
}

/** A failure of a named check, with the (shrunk) case and how the server answered. */
export interface EngineFailure {
  check: NamedCheck | DocumentCheck;
  message: string;
  case: EngineCase | RpcCase | DocumentCase;
  request: WireRequest;
  response: { status: number; headers: Record<string, string>; body: string };
  /** True when fast-check shrank the case to this minimal one. */
  shrunk: boolean;
}

/** Counts of one named check on one surface. */
export interface CheckTally {
  surface: ResultSurface | DocumentSurface;
  check: NamedCheck | DocumentCheck;
  passed: number;
  failed: number;
  /** Cases the check could not judge (e.g. no credential for a secured operation); never passes. */
  skipped: number;
  skipReasons: string[];
  failures: EngineFailure[];
}

/** Wall time and requests of one phase on one surface. */
export interface PhaseTiming {
  surface: ResultSurface | DocumentSurface;
  phase: Phase;
  requests: number;
  ms: number;
}

/** Everything a run produced. */
export interface EngineResult {
  seed: number;
  phases: Phase[];
  maxExamples: number;
  requests: number;
  durationMs: number;
  timings: PhaseTiming[];
  tallies: CheckTally[];
  coverage: Record<string, SurfaceCoverage>;
}

/** Runs the phases over the surfaces and returns the tallies. */
export async function runEngine(target: EngineTarget, options: EngineOptions): Promise<EngineResult> {
  const started = performance.now();
  const client = engineClient({
    ...(target.caCert ? { caCert: target.caCert } : {}),
    connections: options.concurrency ?? 16,
  });
  const surfaces: readonly ResultSurface[] = options.surfaces ?? [
    ...(Object.keys(ENGINE_SURFACES) as EngineSurface[]).filter((s) => target.bases[s]),
    ...(target.rpc ? [CHAIN_SURFACE] : []),
  ];
  const tallies = new Map<string, CheckTally>();
  const coverage: Record<string, SurfaceCoverage> = {};
  const timings: PhaseTiming[] = [];
  const times = new AnswerTimes();
  let requests = 0;
  try {
    for (const surface of surfaces) {
      if (options.signal?.aborted) break;
      if (surface === CHAIN_SURFACE) {
        if (!target.rpc) throw new Error('no JSON-RPC endpoint for the chain surface');
        const { runRpcSurface } = await import('./rpc-run.ts');
        const specsDir = options.specsDir ?? SPECS_DIR;
        const chain = await runRpcSurface({ rpc: target.rpc, client, options, specsDir, tallies, times });
        coverage[surface] = chain.coverage;
        timings.push(...chain.timings);
        requests += chain.requests;
        continue;
      }
      const base = target.bases[surface];
      if (!base) throw new Error(`no base URL for the ${surface} surface`);
      const contract = loadContract(options.specsDir ?? SPECS_DIR, surface);
      for (const check of NAMED_CHECKS.filter((c) => selected(options, c)))
        tallies.set(`${surface}:${check}`, {
          surface,
          check,
          passed: 0,
          failed: 0,
          skipped: 0,
          skipReasons: [],
          failures: [],
        });
      const cov = emptyCoverage(contract);
      coverage[surface] = cov;
      const ctx: RunContext = { contract, base, target, client, options, tallies, coverage: cov, times };
      for (const phase of options.phases) {
        if (options.signal?.aborted) break;
        const t0 = performance.now();
        const sent = await runPhase(ctx, phase);
        requests += sent;
        timings.push({ surface, phase, requests: sent, ms: Math.round(performance.now() - t0) });
      }
    }
    // The AsyncAPI messages and the evidence schema, judged in process; their cases count as requests.
    for (const surface of options.documents ?? []) {
      if (options.signal?.aborted) break;
      const done = await runDocumentSurface(surface, { ...options, specsDir: options.specsDir ?? SPECS_DIR });
      for (const t of asCheckTallies(done)) if (selected(options, t.check)) tallies.set(`${surface}:${t.check}`, t);
      coverage[surface] = done.coverage;
      for (const t of done.timings) timings.push({ surface, phase: t.phase, requests: t.cases, ms: t.ms });
      requests += done.timings.reduce((n, t) => n + t.cases, 0);
    }
    await tlsHybridGroup(originsOf(target, surfaces), target.caCert, tallies);
    judgeResponseTimes(times, options.responseTime, tallies);
  } finally {
    client.close();
  }
  return {
    seed: options.seed,
    phases: [...options.phases],
    maxExamples: options.maxExamples,
    requests,
    durationMs: Math.round(performance.now() - started),
    timings,
    tallies: [...tallies.values()],
    coverage,
  };
}

/** Each origin the run talked to, with the surface its `tls_hybrid_group` verdict is counted under. */
function originsOf(target: EngineTarget, surfaces: readonly ResultSurface[]): { url: URL; surface: ResultSurface }[] {
  const out = new Map<string, { url: URL; surface: ResultSurface }>();
  for (const surface of surfaces) {
    const url = surface === CHAIN_SURFACE ? target.rpc : target.bases[surface];
    if (url && !out.has(url.origin)) out.set(url.origin, { url, surface });
  }
  // The site serves no contract of the engine: its verdict is counted under the run's first surface.
  const first = surfaces[0];
  if (target.site && first && !out.has(target.site.origin))
    out.set(target.site.origin, { url: target.site, surface: first });
  return [...out.values()];
}

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

/** The cases of one phase for one operation. */
function casesOf(ctx: RunContext, op: Operation, phase: Phase, index: number): EngineCase[] {
  const credential = credentialFor(ctx.target, op);
  const base = { surface: op.surface, operation: op.id, phase, method: op.method, authenticated: credential !== null };
  const make = (kind: EngineCase['kind'], reason: string, input: CaseInput): EngineCase => ({
    ...base,
    kind,
    reason,
    input,
  });
  const out: EngineCase[] = [];
  const seed = ctx.options.seed + index;
  if (phase === 'examples') {
    for (const input of exampleInputs(op)) {
      const valid = !op.body || input.body === undefined || schemaErrors(op.body.schema, input.body).length === 0;
      out.push(make(valid ? 'positive' : 'negative', 'contract example', input));
    }
  } else if (phase === 'coverage') {
    const [input] = fc.sample(inputArbitrary(op), { seed, numRuns: 1 });
    if (input) {
      out.push(make('positive', 'a valid input', input));
      for (const v of inputVariants(op, input))
        out.push(make(v.missingHeader ? 'missing_header' : v.valid ? 'positive' : 'negative', v.reason, v.input));
      if (credential !== null) {
        out.push({ ...make('unauthenticated', 'no credential', input), authenticated: false });
        out.push({
          ...make('bad_credentials', 'a wrong credential', input),
          authorization: 'Bearer not-a-credential-of-this-service',
        });
      }
    }
  } else if (phase === 'fuzz') {
    for (const v of fc.sample(fuzzArbitrary(op), { seed, numRuns: ctx.options.maxExamples }))
      out.push(make(v.valid ? 'positive' : 'negative', v.reason, v.input));
  }
  return out;
}

/** Cases of a method each path does not document (coverage phase), with an operation of the path for context. */
function unsupportedMethodCases(ctx: RunContext): { op: Operation; c: EngineCase }[] {
  const out: { op: Operation; c: EngineCase }[] = [];
  for (const [route, methods] of Object.entries(ctx.contract.paths)) {
    const method = ['PATCH', 'PUT', 'DELETE', 'POST', 'GET'].find((m) => !methods.includes(m));
    const op = ctx.contract.operations.find((o) => o.route === route);
    if (!method || !op) continue;
    const [input] = fc.sample(inputArbitrary({ ...op, body: undefined }), { seed: ctx.options.seed, numRuns: 1 });
    out.push({
      op,
      c: {
        surface: op.surface,
        operation: op.id,
        phase: 'coverage',
        kind: 'unsupported_method',
        reason: `${method} is not documented for ${route}`,
        input: input ?? { params: {} },
        method,
        authenticated: true,
      },
    });
  }
  return out;
}

async function runPhase(ctx: RunContext, phase: Phase): Promise<number> {
  if (phase === 'stateful') return runStateful(ctx);
  const work: { op: Operation; c: EngineCase }[] = [];
  ctx.contract.operations.forEach((op, i) => {
    const credential = credentialFor(ctx.target, op);
    for (const c of casesOf(ctx, op, phase, i)) {
      // Without a credential for a secured operation only the auth checks can judge its cases.
      if (credential === undefined && c.authenticated && c.kind !== 'unauthenticated' && c.kind !== 'bad_credentials') {
        skip(ctx, c, `no credential for ${op.id} (${op.security.flatMap((s) => Object.keys(s)).join(' or ')})`);
        continue;
      }
      const avoided = mayChange(ctx.target, op, c); // D-236, D-237
      if (avoided) {
        skip(ctx, c, avoided);
        continue;
      }
      work.push({ op, c });
    }
  });
  if (phase === 'coverage') work.push(...unsupportedMethodCases(ctx));
  const firstFailure = new Map<string, EngineCase>();
  await pooled(work, ctx.options.concurrency ?? 16, async ({ op, c }) => {
    if (ctx.options.signal?.aborted) return;
    const request = toRequest(ctx.base, op, c, credentialFor(ctx.target, op));
    const response = await sendSafely(ctx, request);
    if (response.durationMs !== undefined) ctx.times.add(ctx.contract.surface, op.id, response.durationMs);
    for (const v of judge(ctx, ctx.contract, op, c, response)) {
      if (phase === 'fuzz' && !firstFailure.has(`${op.id}:${v.check}`)) firstFailure.set(`${op.id}:${v.check}`, c);
      else keepFailure(ctx, v, c, request, response);
    }
  });
  // fast-check shrinks the first fuzz failure of each operation and check to a minimal case.
  let extra = 0;
  for (const [k, c] of firstFailure) {
    const check = k.slice(k.lastIndexOf(':') + 1) as NamedCheck;
    const op = ctx.contract.operations.find((o) => o.id === c.operation) as Operation;
    const shrunk = await shrink(ctx, op, c, check);
    extra += shrunk.requests;
    const tally = ctx.tallies.get(`${op.surface}:${check}`);
    if (tally && tally.failures.length < (ctx.options.maxFailures ?? 20)) tally.failures.unshift(shrunk.failure);
  }
  return work.length + extra;
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
): CheckVerdict[] {
  if (op.surface === ctx.contract.surface)
    recordCoverage(ctx.coverage, op, c, response, documented(op, response.status) !== undefined);
  const failed: CheckVerdict[] = [];
  const verdicts = [...evaluate(contract, op, c, response), ...securityHeaders(ctx, ctx.base, response)].filter((v) =>
    ctx.tallies.has(`${ctx.contract.surface}:${v.check}`),
  );
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
  v: CheckVerdict,
  c: EngineCase,
  request: WireRequest,
  response: WireResponse,
): void {
  const tally = ctx.tallies.get(`${ctx.contract.surface}:${v.check}`);
  if (tally && tally.failures.length < (ctx.options.maxFailures ?? 20))
    tally.failures.push(failure(v.check, v.message ?? '', c, request, response, false));
}

/** Sends a request; a cut connection or a timeout is an answer of status 0. */
export async function sendSafely(ctx: RunContext, request: WireRequest): Promise<WireResponse> {
  try {
    const response = await ctx.client.send(request);
    recordWrite(ctx.target, request, response); // D-235: what a 2xx write changed is put back when the run ends
    return response;
  } catch (error) {
    // A connection cut or a timeout is the server failing the request: reported as status 0.
    return { status: 0, headers: {}, text: `no response: ${(error as Error).message}`, json: undefined };
  }
}

function skip(ctx: RunContext, c: EngineCase, reason: string): void {
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

function failure(
  check: NamedCheck,
  message: string,
  c: EngineCase,
  request: WireRequest,
  response: WireResponse,
  shrunk: boolean,
): EngineFailure {
  return {
    check,
    message,
    case: c,
    request,
    response: { status: response.status, headers: response.headers, body: response.text.slice(0, 2000) },
    shrunk,
  };
}

/** Re-runs the fuzz property of `op` from the failing case and lets fast-check shrink it. */
async function shrink(
  ctx: RunContext,
  op: Operation,
  failing: EngineCase,
  check: NamedCheck,
): Promise<{ failure: EngineFailure; requests: number }> {
  let requests = 0;
  let last: { c: EngineCase; request: WireRequest; response: WireResponse; message: string } | undefined;
  const credential = credentialFor(ctx.target, op);
  const property = fc.asyncProperty(fuzzArbitrary(op), async (v) => {
    const c: EngineCase = { ...failing, kind: v.valid ? 'positive' : 'negative', reason: v.reason, input: v.input };
    if (mayChange(ctx.target, op, c)) return true; // D-236, D-237: not sent, so not a counterexample
    const request = toRequest(ctx.base, op, c, credential);
    const response = await sendSafely(ctx, request);
    requests += 1;
    const verdict = evaluate(ctx.contract, op, c, response).find((x) => x.check === check && !x.ok);
    if (verdict) last = { c, request, response, message: verdict.message ?? '' };
    return verdict === undefined;
  });
  const example = { valid: failing.kind === 'positive', reason: failing.reason, input: failing.input };
  const limits = { interruptAfterTimeLimit: ctx.options.shrinkMs ?? 20_000, markInterruptAsFailure: false };
  // The failing value itself first (fast-check shrinks it when its arbitrary can without context); if it
  // cannot, the property again from the run's seed, whose failures shrink through their generation context.
  let details: fc.RunDetails<[FuzzInput]> = await fc.check(property, {
    ...limits,
    seed: ctx.options.seed,
    numRuns: 1,
    examples: [[example]],
  });
  if (!details.failed || details.numShrinks === 0) {
    const again = await fc.check(property, { ...limits, seed: ctx.options.seed, numRuns: ctx.options.maxExamples });
    if (again.failed && again.numShrinks > 0) details = again;
  }
  const minimal = details.failed ? details.counterexample?.[0] : undefined;
  const c: EngineCase = minimal
    ? { ...failing, kind: minimal.valid ? 'positive' : 'negative', reason: minimal.reason, input: minimal.input }
    : failing;
  const request = toRequest(ctx.base, op, c, credential);
  const response = await sendSafely(ctx, request);
  const verdict = evaluate(ctx.contract, op, c, response).find((x) => x.check === check && !x.ok);
  const message = verdict?.message ?? `failed once, then passed when sent again: ${last?.message ?? ''}`;
  return {
    failure: failure(check, message, c, request, response, minimal !== undefined && details.numShrinks > 0),
    requests: requests + 1,
  };
}

export { wire };
