/**
 * The phases of one OpenAPI surface: the cases of each operation (examples, coverage, fuzz), the methods its paths
 * do not document, and the stateful sequences; fuzz failures shrunk with fast-check to a minimal case.
 */
import { engineFailure, openTallies } from '../core/tallies.ts';
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import type { CaseInput, EngineCase, Phase } from '../core/cases.ts';
import { pooled, type WireRequest, type WireResponse } from '../core/client.ts';
import type { NamedCheck } from '../core/names.ts';
import type { EngineFailure, PhaseTiming } from '../core/types.ts';
import { schemaErrors } from '../core/ajv.ts';
import type { Operation } from './contract.ts';
import { credentialFor, judge, keepFailure, type RunContext, sendSafely, skipCase, toRequest } from './context.ts';
import { exampleInputs, type FuzzInput, fuzzArbitrary, inputArbitrary, inputVariants } from './inputs.ts';
import { evaluate } from './judges.ts';
import { runStateful } from './stateful.ts';
import { mayChange } from './write-effects.ts';

/** Runs the phases on one OpenAPI surface, tallying its checks; returns its timings and requests. */
export async function runOpenApiSurface(ctx: RunContext): Promise<{ timings: PhaseTiming[]; requests: number }> {
  const surface = ctx.contract.surface;
  openTallies(ctx.tallies, surface, ctx.options);
  const timings: PhaseTiming[] = [];
  let requests = 0;
  for (const phase of ctx.options.phases) {
    if (ctx.options.signal?.aborted) break;
    const t0 = performance.now();
    const sent = await runPhase(ctx, phase);
    requests += sent;
    timings.push({ surface, phase, requests: sent, ms: Math.round(performance.now() - t0) });
  }
  return { timings, requests };
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
        skipCase(ctx, c, `no credential for ${op.id} (${op.security.flatMap((s) => Object.keys(s)).join(' or ')})`);
        continue;
      }
      const avoided = mayChange(ctx.target, op, c); // D-236, D-237
      if (avoided) {
        skipCase(ctx, c, avoided);
        continue;
      }
      work.push({ op, c });
    }
  });
  if (phase === 'coverage') work.push(...unsupportedMethodCases(ctx));
  const firstFailure = new Map<string, { c: EngineCase; message: string }>();
  await pooled(work, ctx.options.concurrency ?? 16, async ({ op, c }) => {
    if (ctx.options.signal?.aborted) return;
    const request = toRequest(ctx.base, op, c, credentialFor(ctx.target, op));
    const response = await sendSafely(ctx, request);
    if (response.durationMs !== undefined) ctx.times.add(ctx.contract.surface, op.id, response.durationMs);
    for (const v of judge(ctx, ctx.contract, op, c, response)) {
      if (phase === 'fuzz' && !firstFailure.has(`${op.id}:${v.check}`))
        firstFailure.set(`${op.id}:${v.check}`, { c, message: v.message ?? '' });
      else keepFailure(ctx, v, c, request, response);
    }
  });
  // fast-check shrinks the first fuzz failure of each operation and check to a minimal case.
  let extra = 0;
  for (const [k, { c, message }] of firstFailure) {
    const check = k.slice(k.lastIndexOf(':') + 1) as NamedCheck;
    const op = ctx.contract.operations.find((o) => o.id === c.operation) as Operation;
    const shrunk = await shrink(ctx, op, c, check, message);
    extra += shrunk.requests;
    const tally = ctx.tallies.get(`${op.surface}:${check}`);
    if (tally && tally.failures.length < (ctx.options.maxFailures ?? 20)) tally.failures.unshift(shrunk.failure);
  }
  return work.length + extra;
}

/** Re-runs the fuzz property of `op` from the failing case and lets fast-check shrink it. */
async function shrink(
  ctx: RunContext,
  op: Operation,
  failing: EngineCase,
  check: NamedCheck,
  firstMessage: string,
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
    const verdict = evaluate(ctx.contract, op, c, response, undefined, ctx.options.expectedStatuses).find(
      (x) => x.check === check && !x.ok,
    );
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
  const verdict = evaluate(ctx.contract, op, c, response, undefined, ctx.options.expectedStatuses).find(
    (x) => x.check === check && !x.ok,
  );
  // A case that fails once and passes when sent again keeps the first failure's message: what the server did.
  const message = verdict?.message ?? `failed once (${last?.message ?? firstMessage}), then passed when sent again`;
  return {
    failure: engineFailure(check, message, c, request, response, minimal !== undefined && details.numShrinks > 0),
    requests: requests + 1,
  };
}
