/**
 * The judges of the generated checks, for one answer a hand-written check got (D-232): a hand-written check
 * that tests the same property as a generated one calls its judge here instead of re-implementing it.
 */
import type { CaseKind, EngineCase } from '../core/cases.ts';
import type { CaseVerdict } from '../core/checks.ts';
import { evaluate } from './judges.ts';
import type { NamedCheck } from '../core/names.ts';
import type { WireResponse } from '../core/client.ts';
import { type Contract, ENGINE_SURFACES, type EngineSurface, type Operation } from './contract.ts';

/** The surface whose contract is the file `file` of specs/ (`institutional.openapi.yaml` → institutional). */
export function surfaceOfFile(file: string): EngineSurface {
  const found = (Object.entries(ENGINE_SURFACES) as [EngineSurface, string][]).find(([, f]) => f === file);
  if (!found) throw new Error(`${file} is not an OpenAPI contract of specs/`);
  return found[0];
}

/** The operation `METHOD /route` of `contract`; throws when the contract has none. */
export function operationOf(contract: Contract, operation: string): Operation {
  const op = contract.operations.find((o) => o.id === operation);
  if (!op) throw new Error(`${operation} is not an operation of the ${contract.surface} contract`);
  return op;
}

/**
 * The verdicts of the generated checks `checks` on an answer to `op`, judged as the answer to a case of
 * `kind` (a hand-written request without credentials is `unauthenticated`).
 */
export function judgeAnswer(
  contract: Contract,
  op: Operation,
  response: WireResponse,
  checks: readonly NamedCheck[],
  kind: CaseKind = 'positive',
): CaseVerdict[] {
  const c: EngineCase = {
    surface: contract.surface,
    operation: op.id,
    phase: 'examples',
    kind,
    reason: 'a hand-written check',
    input: { params: {} },
    method: op.method,
    authenticated: kind !== 'unauthenticated',
  };
  return evaluate(contract, op, c, response, checks);
}
