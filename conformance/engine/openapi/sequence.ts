/**
 * One stateful sequence (D-189): numbered steps on the running surface, each sent and judged, whose later steps
 * take their input from what earlier ones answered, following the contracts' OpenAPI links.
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { SPECS_DIR } from '../../../src/paths.ts';
import { schemaErrors } from '../core/ajv.ts';
import { type CaseInput, type CaseKind, type EngineCase, wire } from '../core/cases.ts';
import { exampleInputs, inputArbitrary } from './inputs.ts';
import type { NamedCheck } from '../core/names.ts';
import { pointerValue } from './judges.ts';
import type { WireResponse } from '../core/client.ts';
import { contractOf, type Contract, type EngineSurface, type Operation } from './contract.ts';
import { credentialFor, judge, keepFailure, type RunContext, sendSafely, toRequest } from './context.ts';
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
    return surfaceOperation(this.ctx, surface, id);
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

/** The operation `id` (`METHOD /route` or operationId) of `surface`'s contract, and that contract. */
export function surfaceOperation(
  ctx: RunContext,
  surface: EngineSurface,
  id: string,
): { contract: Contract; op: Operation } {
  let contract = surface === ctx.contract.surface ? ctx.contract : undefined;
  if (!contract) {
    contract = contractOf(ctx.options.specsDir ?? SPECS_DIR, surface);
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
  const { op } = surfaceOperation(ctx, source.surface, link.operationId);
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

/** A unique suffix for names and e-mail addresses the sequences create. */
export const unique = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
