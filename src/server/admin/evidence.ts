/**
 * GET /admin/v1/evidence (D-275): the evidence document the site origin serves (`<data>/evidence`, D-153), when
 * it was built and whether it verifies by the rules of `svckit evidence verify` (src/evidence/verify.ts), so the
 * administrator console can show it. A document not built yet is `missing`, not an error.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '@svckit/sdk/clock';
import type { EvidenceStatus } from '@svckit/sdk/admin';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { verifyEvidence } from '../../evidence/verify.ts';

/** D-275: the answer lists at most this many violations; `violationCount` counts them all. */
export const MAX_LISTED_VIOLATIONS = 20;

/** The state of `<evidenceDir>/pqc-evidence.json` at `now`. */
export function evidenceStatus(evidenceDir: string, now: Date): EvidenceStatus {
  let text: string;
  try {
    text = readFileSync(path.join(evidenceDir, 'pqc-evidence.json'), 'utf8');
  } catch {
    return { status: 'missing', generated: null, ageDays: null, violationCount: 0, violations: [] };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const violation = { rule: 'json', path: '/', message: `it is not JSON (${(error as Error).message})` };
    return { status: 'invalid', generated: null, ageDays: null, violationCount: 1, violations: [violation] };
  }
  const result = verifyEvidence(document, { now });
  const generated = (document as { generated?: unknown }).generated;
  const parsed = typeof generated === 'string' && !Number.isNaN(Date.parse(generated));
  return {
    status: result.status,
    generated: parsed ? new Date(Date.parse(generated)).toISOString() : null,
    ageDays: parsed && result.ageDays !== undefined ? Math.max(0, Math.round(result.ageDays * 100) / 100) : null,
    violationCount: result.violations.length,
    violations: result.violations.slice(0, MAX_LISTED_VIOLATIONS),
  };
}

/** The evidence status handler; `evidenceDir` is the folder the site origin serves. */
export function evidenceHandler(evidenceDir: string, clock: Clock): Pick<RouteHandlers, 'adminGetEvidenceStatus'> {
  return {
    adminGetEvidenceStatus: async (_request, reply) =>
      reply.code(200).send(evidenceStatus(evidenceDir, new Date(clock.now()))),
  };
}
