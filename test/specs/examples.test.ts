// Every example in the contracts validates. This runs the
// harness's own spec checks (the ones `svckit conformance --target specs` runs) on the real contracts.
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { runChecks, summarise } from '../../conformance/runner.ts';
import { specsOnlyTarget } from '../../conformance/targets/specs-only.ts';

describe('contract examples', () => {
  it('validate against their schemas in all seven contracts', async () => {
    const results = await runChecks(buildCatalogue(), specsOnlyTarget(), { only: ['specs'] });
    const failures = results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(summarise(results)).toMatchObject({ passed: 7, failed: 0, skipped: 0 });
  });
});
