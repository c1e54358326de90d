// The loop: the examples and coverage phases pass against the generated mocks (behind the validating mock
// service, D-186) and against the in-process reference alike. A contract change that one side misses (a
// new required field the server does not check, a status the mocks cannot give, an example the server
// refuses) fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../../conformance/engine/target.ts';
import { mocksTarget } from '../../../conformance/targets/mocks.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { engineRunReport } from '../helpers/engine-report.ts';

const SEED = 20261124;
/** The mocks are those of the four OpenAPI contracts. */
const SURFACES = ['institutional', 'explorer', 'wallet', 'admin'] as const;
const targets: Target[] = [];
const results: Record<'mocks' | 'reference', EngineResult | undefined> = { mocks: undefined, reference: undefined };

/** Every failure of a run, one line each. */
const failures = (result: EngineResult | undefined) =>
  (result?.tallies ?? []).flatMap((t) =>
    t.failures.map((f) => `${t.surface} ${t.check} ${f.case.operation} (${f.case.reason}): ${f.message.slice(0, 160)}`),
  );

beforeAll(async () => {
  const mocks = await mocksTarget();
  targets.push(mocks);
  results.mocks = await runEngine(await engineTargetOf(mocks), {
    phases: ['examples', 'coverage'],
    seed: SEED,
    maxExamples: 0,
    surfaces: SURFACES,
  });
  const reference = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } });
  targets.push(reference);
  results.reference = await runEngine(await engineTargetOf(reference), {
    phases: ['examples', 'coverage'],
    seed: SEED,
    maxExamples: 0,
    surfaces: SURFACES,
  });
}, 600_000);

afterAll(async () => {
  for (const t of targets) await t.close?.();
});

describe('the examples and coverage phases against the mocks and the reference', () => {
  it('pass against the mocks', () => {
    expect(failures(results.mocks)).toEqual([]);
    expect(results.mocks?.requests).toBeGreaterThan(500);
  });

  it('pass against the reference', () => {
    expect(failures(results.reference)).toEqual([]);
    expect(results.reference?.requests).toBeGreaterThan(500);
  });

  it('exercise every operation of the four contracts on both sides', () => {
    for (const side of [results.mocks, results.reference]) {
      const { report } = engineRunReport(side as EngineResult);
      for (const surface of SURFACES) {
        const { covered, total } = report.surfaces[surface]?.coverage?.operations ?? { covered: 0, total: -1 };
        expect(covered, surface).toBe(total);
      }
    }
  });
});
