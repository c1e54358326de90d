// How every surface defines its checks (house rule 7: "severity (MUST for the spec, SHOULD for a decision)")
// and turns lists of problems into verdicts. A skipped check is never a pass (spec, evidence document F:
// "a skipped or not-applicable case is not a pass").
import type { Check, CheckContext, CheckSource, CheckVerdict, Surface } from '../catalogue.ts';
import type { HttpResult } from '../http.ts';
import type { Capability } from '../targets/target.ts';

/** A precondition the target cannot meet (e.g. no funding on an external chain): the check is skipped, never passed. */
export class Unavailable extends Error {
  override name = 'Unavailable';
}

/** What a check states; its surface and severity are added by the definer of its surface. */
export interface CheckDefinition {
  /** Stable dotted id, starting with the surface's name (conformance/catalogue.ts SURFACE_NAMES). */
  id: string;
  /** One-line human title. */
  title: string;
  /** The spec quote or decision it enforces. */
  source: CheckSource;
  /** Target capabilities it needs (default: the surface's). */
  needs?: readonly Capability[];
  /** Its deadline in ms when it needs longer than the runner's default (D-181). */
  deadlineMs?: number;
  /** Runs the check; throwing Unavailable skips it, throwing anything else fails it. */
  run(ctx: CheckContext): Promise<CheckVerdict>;
}

/** What differs between surfaces when they define checks. */
export interface SurfaceDefaults {
  /** The surface every check of the definer belongs to. */
  surface: Surface;
  /** The capabilities of a check that names none. */
  needs: readonly Capability[];
}

/**
 * The check definer of one surface: each check gets the surface, the severity its source implies (MUST for a
 * spec quote, SHOULD for a decision) and the surface's needs unless it names its own; an Unavailable thrown
 * by run() becomes a skip with its message.
 */
export function checkDefiner(defaults: SurfaceDefaults): (definition: CheckDefinition) => Check {
  return (definition) => ({
    ...definition,
    surface: defaults.surface,
    severity: 'quote' in definition.source ? 'MUST' : 'SHOULD',
    needs: definition.needs ?? defaults.needs,
    async run(ctx) {
      try {
        return await definition.run(ctx);
      } catch (error) {
        if (error instanceof Unavailable) return skip(error.message);
        throw error;
      }
    },
  });
}

/** A skip with its reason. */
export const skip = (reason: string): CheckVerdict => ({ status: 'skipped', reason });

/** A verdict from a list of problems: passed when empty, else failed with the first eight as its reason. */
function fromProblems(
  problems: string[],
  passReason: string | undefined,
  detail: { request?: HttpResult['request']; actual?: unknown },
): CheckVerdict {
  const request = detail.request ? { request: detail.request } : {};
  if (problems.length === 0) return { status: 'passed', ...(passReason ? { reason: passReason } : {}), ...request };
  return {
    status: 'failed',
    reason: problems.slice(0, 8).join('; '),
    ...request,
    ...(detail.actual !== undefined ? { actual: detail.actual } : {}),
  };
}

/** The verdict of a check that made the HTTP exchange `res`: its request is reported, and its body on failure. */
export function verdict(problems: string[], res?: HttpResult, passReason?: string): CheckVerdict {
  return fromProblems(problems, passReason, res ? { request: res.request, actual: res.json ?? res.text } : {});
}

/** The verdict of a check whose evidence is not one HTTP exchange (webhook deliveries): `actual` is reported on failure. */
export function outcome(problems: string[], passReason?: string, actual?: unknown): CheckVerdict {
  return fromProblems(problems, passReason, { actual });
}
