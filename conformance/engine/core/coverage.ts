/**
 * Coverage of a surface's contract: operations answered with a documented status, (operation, status)
 * pairs seen, and parameters (and request bodies) exercised. The score formula is stated in
 * docs/conformance-engine.md and computed in {@link score}.
 */
import type { EngineCase } from './cases.ts';
import type { WireResponse } from './client.ts';
import type { Contract, Operation } from '../openapi/contract.ts';

/** Coverage of one surface. */
export interface SurfaceCoverage {
  /** Operation id → whether a case got a documented status. */
  operations: Record<string, boolean>;
  /** `METHOD /route STATUS` → whether that documented status was seen. */
  responses: Record<string, boolean>;
  /** `METHOD /route in:name` (or `body`) → whether a case sent a value. */
  parameters: Record<string, boolean>;
}

/** Covered and total counts. */
export interface Ratio {
  covered: number;
  total: number;
}

/** Everything false: the surface before any case. */
export function emptyCoverage(contract: Contract): SurfaceCoverage {
  const cov: SurfaceCoverage = { operations: {}, responses: {}, parameters: {} };
  for (const op of contract.operations) {
    cov.operations[op.id] = false;
    for (const status of Object.keys(op.responses))
      if (status !== 'default') cov.responses[`${op.id} ${status}`] = false;
    for (const p of op.parameters) if (p.in !== 'cookie') cov.parameters[`${op.id} ${p.in}:${p.name}`] = false;
    if (op.body) cov.parameters[`${op.id} body`] = false;
  }
  return cov;
}

/** Records one answered case. */
export function recordCoverage(
  cov: SurfaceCoverage,
  op: Operation,
  c: EngineCase,
  res: WireResponse,
  isDocumented: boolean,
): void {
  if (c.kind === 'unsupported_method' || res.status === 0) return;
  if (isDocumented) cov.operations[op.id] = true;
  const key = `${op.id} ${res.status}`;
  if (key in cov.responses) cov.responses[key] = true;
  for (const [name, value] of Object.entries(c.input.params))
    if (value !== undefined) cov.parameters[`${op.id} ${name}`] = true;
  if (c.input.body !== undefined && op.body) cov.parameters[`${op.id} body`] = true;
}

/** Counts of true entries. */
export function ratio(map: Record<string, boolean>): Ratio {
  const values = Object.values(map);
  return { covered: values.filter(Boolean).length, total: values.length };
}

/**
 * score = 100 × P × (O + R + A) / 3, where P is the share of passed verdicts among passed and failed, and
 * O, R, A the covered shares of operations, documented responses and parameters. Rounded to one decimal.
 */
export function score(passed: number, failed: number, operations: Ratio, responses: Ratio, parameters: Ratio): number {
  const share = (r: Ratio) => (r.total === 0 ? 1 : r.covered / r.total);
  const p = passed + failed === 0 ? 0 : passed / (passed + failed);
  return Math.round(1000 * p * ((share(operations) + share(responses) + share(parameters)) / 3)) / 10;
}
