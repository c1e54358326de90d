import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { institutionalChecks } from '../../conformance/checks/institutional.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { nonPasses, runGroup, startTarget } from './support.ts';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  await target?.close?.();
});

describe('all', () => {
  it('pass', async () => {
    const results = await runGroup(target, institutionalChecks());
    for (const r of results) console.log(r.id, r.status, r.durationMs, r.reason ?? '');
    expect(nonPasses(results)).toEqual([]);
  }, 600_000);
});
