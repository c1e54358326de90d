/**
 * The `stateful` phase: sequences of operations whose later steps use what earlier ones answered. It follows
 * the contracts' OpenAPI links generically, and runs the lifecycles of the specification whose order links
 * alone cannot state (a credential used after its revocation, an event between a secret and a delete)
 * (D-189). Every step's answer is held to the named checks; reading what a step created is judged by
 * `ensure_resource_availability`, using what a step deleted or revoked by `use_after_free` (D-190).
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { SPECS_DIR } from '../../src/paths.ts';
import { schemaErrors } from './ajv.ts';
import { type CaseInput, type CaseKind, type EngineCase, exampleInputs, inputArbitrary, wire } from './cases.ts';
import { type NamedCheck, pointerValue } from './checks.ts';
import type { WireResponse } from './client.ts';
import { type Contract, type EngineSurface, loadContract, type Operation } from './contract.ts';
import { LIFECYCLES } from './lifecycles.ts';
import { credentialFor, judge, keepFailure, type RunContext, sendSafely, toRequest } from './run.ts';
import { mayChange } from './write-effects.ts';

/** Why a sequence stops before its end; the checks it had still to judge are skipped with this reason. */
export class Stop extends Error {}

/** How one step is sent. */
export interface StepOptions {
  /** Why the step is sent, for the case's reason. */
  what: string;
  /** An Authorization value replacing the engine's credential for the operation (a key or session just made). */
  authorization?: string;
  /** For `after_create`: the array of the answer that must list what was created (see EngineCase). */
  listed?: { in: string; value?: string };
  /** Sends again, unjudged, until this holds or `waitMs` passes (work the server finishes after answering). */
  until?: (res: WireResponse) => boolean;
  waitMs?: number;
}

const JUDGED_BY: Partial<Record<CaseKind, NamedCheck>> = {
  after_create: 'ensure_resource_availability',
  after_delete: 'use_after_free',
  after_revoke: 'use_after_free',
};

/** One sequence: numbered steps, each sent and judged on the running surface. */
export class Sequence {
  requests = 0;
  /** The sequence checks a step has judged so far. */
  readonly judged = new Set<NamedCheck>();
  /** Steps that undo what the sequence made, run when it ends, last first. */
  readonly undo: (() => Promise<unknown>)[] = [];
  private steps = 0;

  constructor(
    readonly ctx: RunContext,
    readonly name: string,
  ) {}

  /** The operation `id` (`METHOD /route` or operationId) of `surface`'s contract. */
  operation(surface: EngineSurface, id: string): { contract: Contract; op: Operation } {
    return operationOf(this.ctx, surface, id);
  }

  /** Sends one step and judges its answer with the named checks. */
  async step(
    surface: EngineSurface,
    id: string,
    kind: CaseKind,
    input: CaseInput,
    options: StepOptions,
  ): Promise<WireResponse> {
    const { contract, op } = this.operation(surface, id);
    const base = this.ctx.target.bases[surface];
    if (!base) throw new Stop(`the target has no base URL for the ${surface} surface`);
    const authorization = options.authorization ?? credentialFor(this.ctx.target, op);
    if (authorization === undefined) throw new Stop(`no credential for ${op.id}`);
    this.steps += 1;
    const c: EngineCase = {
      surface,
      operation: op.id,
      phase: 'stateful',
      kind,
      reason: options.what,
      input,
      method: op.method,
      authenticated: authorization !== null,
      sequence: `${this.name}, step ${this.steps}`,
      ...(options.listed ? { listed: options.listed } : {}),
    };
    const avoided = mayChange(this.ctx.target, op, c); // D-236, D-237
    if (avoided) throw new Stop(avoided);
    const request = toRequest(base, op, c, authorization);
    let response = await sendSafely(this.ctx, request);
    this.requests += 1;
    const deadline = Date.now() + (options.waitMs ?? 0);
    while (options.until && !options.until(response) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      response = await sendSafely(this.ctx, request);
      this.requests += 1;
    }
    for (const v of judge(this.ctx, contract, op, c, response)) keepFailure(this.ctx, v, c, request, response);
    const check = JUDGED_BY[kind];
    if (check) this.judged.add(check);
    return response;
  }

  /** Stops the sequence unless `res` is 2xx. */
  require(res: WireResponse, what: string): Record<string, unknown> {
    if (res.status < 200 || res.status >= 300)
      throw new Stop(`${what} answered HTTP ${res.status}: ${res.text.slice(0, 160)}`);
    return (res.json ?? {}) as Record<string, unknown>;
  }

  /**
   * The input of the operation the link `name` of `source`'s answer leads to: the target's first valid
   * contract example (else a valid input drawn with the seed), its linked parameters read from the
   * request and answer (D-189).
   */
  linked(source: Operation, input: CaseInput, res: WireResponse, name: string): CaseInput {
    const link = source.responses[String(res.status)]?.links?.[name];
    if (!link) throw new Stop(`${source.id} ${res.status} has no link ${name}`);
    return linkedInput(this.ctx, source, link, input, res);
  }
}

const contracts = new Map<string, Contract>();

function operationOf(ctx: RunContext, surface: EngineSurface, id: string): { contract: Contract; op: Operation } {
  let contract = surface === ctx.contract.surface ? ctx.contract : undefined;
  if (!contract) {
    const dir = ctx.options.specsDir ?? SPECS_DIR;
    contract = contracts.get(`${dir}:${surface}`) ?? loadContract(dir, surface);
    contracts.set(`${dir}:${surface}`, contract);
  }
  const op = contract.operations.find((o) => o.id === id || o.operationId === id);
  if (!op) throw new Error(`no operation ${id} in the ${surface} contract`);
  return { contract, op };
}

/** The value of an OpenAPI runtime expression over a step's request and answer; undefined when absent. */
export function runtimeValue(expression: string, input: CaseInput, res: WireResponse): unknown {
  const [source, pointer] = expression.split('#');
  if (source === '$response.body') return pointerValue(res.json, pointer ?? '');
  if (source === '$request.body') return pointerValue(input.body, pointer ?? '');
  const m = /^\$(request|response)\.(path|query|header)\.(.+)$/.exec(expression);
  if (!m) return undefined;
  if (m[1] === 'response') return m[2] === 'header' ? res.headers[(m[3] as string).toLowerCase()] : undefined;
  const at = m[2] as string;
  const name = m[3] as string;
  const hit = Object.entries(input.params).find(
    ([k]) => k === `${at}:${name}` || (at === 'header' && k.toLowerCase() === `header:${name.toLowerCase()}`),
  );
  return hit?.[1];
}

function linkedInput(
  ctx: RunContext,
  source: Operation,
  link: { operationId: string; parameters: Record<string, string> },
  input: CaseInput,
  res: WireResponse,
): CaseInput {
  const { op } = operationOf(ctx, source.surface, link.operationId);
  const valid = exampleInputs(op).filter(
    (i) => !op.body || i.body === undefined || schemaErrors(op.body.schema, i.body).length === 0,
  );
  const [drawn] = valid.length > 0 ? valid : fc.sample(inputArbitrary(op), { seed: ctx.options.seed, numRuns: 1 });
  const params = { ...(drawn?.params ?? {}) };
  for (const [name, expression] of Object.entries(link.parameters ?? {})) {
    const value = runtimeValue(expression, input, res);
    if (value === undefined) throw new Stop(`link to ${link.operationId}: ${expression} is absent from the answer`);
    const p = op.parameters.find((x) => x.name === name || `${x.in}.${x.name}` === name);
    if (!p) throw new Stop(`link to ${link.operationId}: the operation has no parameter ${name}`);
    params[`${p.in}:${p.name}`] = wire(value);
  }
  return { ...(drawn ?? {}), params };
}

/**
 * Follows the links of `source`'s answer (D-189): each linked read (`after_create`), then each other linked
 * operation, then `beforeDelete`, then each linked delete, after which each linked read again (`after_delete`).
 */
export async function followLinks(
  seq: Sequence,
  source: Operation,
  input: CaseInput,
  res: WireResponse,
  beforeDelete?: () => Promise<void>,
): Promise<void> {
  const links = Object.entries(source.responses[String(res.status)]?.links ?? {}).map(([name, link]) => ({
    name,
    op: seq.operation(source.surface, link.operationId).op,
    input: () => seq.linked(source, input, res, name),
  }));
  const reads = links.filter((l) => l.op.method === 'GET');
  const deletes = links.filter((l) => l.op.method === 'DELETE');
  for (const l of reads)
    await seq.step(source.surface, l.op.id, 'after_create', l.input(), {
      what: `link ${l.name}: what ${source.id} created is readable`,
    });
  for (const l of links.filter((x) => x.op.method !== 'GET' && x.op.method !== 'DELETE'))
    seq.require(
      await seq.step(source.surface, l.op.id, 'positive', l.input(), { what: `link ${l.name}` }),
      `${l.op.id} (link ${l.name})`,
    );
  await beforeDelete?.();
  for (const d of deletes) {
    seq.require(
      await seq.step(source.surface, d.op.id, 'positive', d.input(), { what: `link ${d.name}` }),
      `${d.op.id} (link ${d.name})`,
    );
    for (const l of reads)
      await seq.step(source.surface, l.op.id, 'after_delete', l.input(), {
        what: `link ${l.name} after link ${d.name}: what was deleted is gone`,
      });
  }
}

/** The sequence checks the links of `op`'s answers can judge. */
function linkChecks(ctx: RunContext, op: Operation): NamedCheck[] {
  const methods = Object.values(op.responses).flatMap((r) =>
    Object.values(r.links ?? {}).map((l) => operationOf(ctx, op.surface, l.operationId).op.method),
  );
  const out: NamedCheck[] = [];
  if (methods.includes('GET')) out.push('ensure_resource_availability');
  if (methods.includes('GET') && methods.includes('DELETE')) out.push('use_after_free');
  return out;
}

/** Counts a skip of each of `checks` on the surface, with the reason. */
function skipChecks(ctx: RunContext, checks: readonly NamedCheck[], reason: string): void {
  for (const check of checks) {
    const tally = ctx.tallies.get(`${ctx.contract.surface}:${check}`);
    if (!tally) continue;
    tally.skipped += 1;
    if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
  }
}

/** Runs one sequence; a {@link Stop} skips the checks it had still to judge. Returns the requests sent. */
async function runSequence(
  ctx: RunContext,
  name: string,
  judges: readonly NamedCheck[],
  body: (seq: Sequence) => Promise<void>,
): Promise<number> {
  // D-190: a target that keeps no state cannot pass a sequence; each is reported as skipped.
  if (ctx.target.stateless) {
    skipChecks(ctx, judges, `${name}: ${ctx.target.stateless}`);
    return 0;
  }
  const seq = new Sequence(ctx, name);
  try {
    await body(seq);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    skipChecks(
      ctx,
      judges.filter((c) => !seq.judged.has(c)),
      `${name}: ${error.message}`,
    );
  } finally {
    for (const undo of seq.undo.reverse()) await undo().catch((e) => e instanceof Stop || Promise.reject(e));
  }
  return seq.requests;
}

/** Runs the stateful phase on the context's surface; returns the requests sent. */
export async function runStateful(ctx: RunContext): Promise<number> {
  const lifecycles = LIFECYCLES.filter((l) => l.surface === ctx.contract.surface);
  const startsOfLifecycles = new Set(LIFECYCLES.flatMap((l) => l.startsFrom));
  let sent = 0;
  for (const op of ctx.contract.operations) {
    const linked = Object.entries(op.responses).some(([s, r]) => s.startsWith('2') && r.links);
    // A lifecycle follows these links from an input it makes (an account of its own, a real key).
    if (!linked || startsOfLifecycles.has(op.operationId ?? '')) continue;
    sent += await runSequence(ctx, `links of ${op.operationId ?? op.id}`, linkChecks(ctx, op), async (seq) => {
      const valid = exampleInputs(op).filter(
        (i) => !op.body || i.body === undefined || schemaErrors(op.body.schema, i.body).length === 0,
      );
      const drawn = fc.sample(inputArbitrary(op), { seed: ctx.options.seed, numRuns: 3 });
      let last: WireResponse | undefined;
      for (const input of [...valid, ...drawn]) {
        last = await seq.step(op.surface, op.id, 'positive', input, { what: `${op.id} with a valid input` });
        if (last.status >= 200 && last.status < 300) return followLinks(seq, op, input, last);
      }
      throw new Stop(`no valid input to ${op.id} was accepted (last answer HTTP ${last?.status ?? 'none'})`);
    });
  }
  for (const l of lifecycles) sent += await runSequence(ctx, l.name, l.judges, (seq) => l.run(seq));
  return sent;
}

/** A unique suffix for names and e-mail addresses the sequences create. */
export const unique = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
