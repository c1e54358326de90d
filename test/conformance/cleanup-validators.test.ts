// A run that may vote on the QBFT validator set puts it back (D-182): a vote that passed is voted back, a pending
// one is let through and then voted back, and a set nobody changed is left alone and not counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp } from '../../conformance/cleanup.ts';
import { request } from '../../conformance/http.ts';
import { currentValidatorSet, keepValidatorSet, voteAndWait } from '../../conformance/qbft-votes.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
}, 180_000);
afterAll(() => target?.close?.());

const sorted = (set: string[]) => [...set].sort();

describe('the validator set after a run', () => {
  it('votes back a passed vote and a pending one, then reports the set as undone', async () => {
    await keepValidatorSet(target);
    const before = await currentValidatorSet(target);
    expect(before.length).toBeGreaterThanOrEqual(4);
    // What the generated admin cases did to a deployment: a valid vote for an unknown address, which passes.
    const stranger = '0x5c6b0f7bf3e7ce046039bd8fabdfd3f9f5021678';
    expect(await voteAndWait(target, stranger, true)).toBeUndefined();
    expect(await currentValidatorSet(target)).toContain(stranger);
    // And one still pending when the run ends.
    const pending = await request(target, 'admin/v1/qbft/votes', {
      body: { validator: before[0], add: false },
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    expect(pending.status).toBe(202);

    const summary = await cleanUp(target);
    expect(summary.failures).toEqual([]);
    expect(summary.undone['QBFT validator set']).toBe(1);
    expect(sorted(await currentValidatorSet(target))).toEqual(sorted(before));
    const votes = await request(target, 'admin/v1/qbft/votes', {
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    expect(votes.json).toEqual({ votes: [] });
    const explorer = await request(target, 'api/validators');
    expect(explorer.status).toBe(200);
  });

  it('leaves an unchanged set alone and does not count it', async () => {
    await keepValidatorSet(target);
    const summary = await cleanUp(target);
    expect(summary).toEqual({ undone: {}, failures: [] });
  });
});
