import fc from 'fast-check';
import { schemaErrors } from '../core/ajv.ts';
import { exampleInputs, inputArbitrary } from './inputs.ts';
import type { NamedCheck } from '../core/names.ts';
import type { WireResponse } from '../core/client.ts';
import type { Operation } from './contract.ts';
import { LIFECYCLES } from './lifecycles.ts';
import type { RunContext } from './context.ts';
import { followLinks, Sequence, Stop, surfaceOperation } from './sequence.ts';

/** The sequence checks the links of `op`'s answers can judge. */
function linkChecks(ctx: RunContext, op: Operation): NamedCheck[] {
  const methods = Object.values(op.responses).flatMap((r) =>
    Object.values(r.links ?? {}).map((l) => surfaceOperation(ctx, op.surface, l.operationId).op.method),
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
