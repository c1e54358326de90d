// Two runs in one process, against two targets at once, do not interfere (D-232, D-234): each has its own
// pacer, event stream and results, and its requests reach its own target only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import type { RunEvent } from '../../conformance/events.ts';
import { runGeneratedChecks } from '../../conformance/engine/run-generated.ts';
import { executeRun, type RunOutcome } from '../../conformance/runner.ts';
import { mocksTarget } from '../../conformance/targets/mocks.ts';
import type { Target } from '../../conformance/targets/target.ts';

let first: Target;
let second: Target;
beforeAll(async () => {
  [first, second] = await Promise.all([mocksTarget(), mocksTarget()]);
});
afterAll(async () => {
  await Promise.all([first?.close?.(), second?.close?.()]);
});

/** One run of a hand-written check and a generated one, with its own event list. */
function run(target: Target): { events: RunEvent[]; done: Promise<RunOutcome> } {
  const events: RunEvent[] = [];
  const done = executeRun(buildCatalogue(), target, {
    only: ['specs.institutional', 'generated.ignored_auth'],
    seed: 11,
    events: (e) => events.push(e),
    generated: runGeneratedChecks,
  });
  return { events, done };
}

const verdicts = (o: RunOutcome) => o.results.map((r) => `${r.id}:${r.status}:${JSON.stringify(r.cases ?? null)}`);

describe('two runs at once', { timeout: 300_000 }, () => {
  it('each reaches only its own target and ends as it would alone', async () => {
    const a = run(first);
    const b = run(second);
    const [outA, outB] = await Promise.all([a.done, b.done]);
    const alone = run(first);
    const outAlone = await alone.done;
    for (const [events, target] of [
      [a.events, first],
      [b.events, second],
    ] as const) {
      const sent = events.filter((e): e is Extract<RunEvent, { type: 'case_sent' }> => e.type === 'case_sent');
      expect(sent.length).toBeGreaterThan(10);
      const own = new Set([target.base?.origin, target.wallet?.origin]);
      const strays = sent.map((e) => new URL(e.request.url).origin).filter((origin) => !own.has(origin));
      expect(strays).toEqual([]);
      expect(events.filter((e) => e.type === 'run_started')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
    }
    // Same seed, same contracts: the same verdicts and case counts as a run alone.
    expect(verdicts(outA)).toEqual(verdicts(outAlone));
    expect(verdicts(outB)).toEqual(verdicts(outAlone));
    expect(outA.results.find((r) => r.id === 'generated.ignored_auth')?.status).toBe('passed');
  });
});
