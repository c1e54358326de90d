// D-240: a statement lists its lines newest stored first, and its pages continue that order.
// institutional.statement.order passes on the reference, and fails on a stand-in in front of it that serves every
// statement page reversed (oldest first), naming the order it got and the one stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../conformance/runner.ts';
import { institutionalStatementOrderChecks } from '../../conformance/checks/institutional/statement-order.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { startStandIn } from '../support/stand-in.ts';
import { runGroup } from './support.ts';

const STATEMENT = /^wallet\/api\/v1\/accounts\/[^/?]+\/statement(\?|$)/;

let reference: Target;
let reversed: Awaited<ReturnType<typeof startStandIn>>;
beforeAll(async () => {
  reference = await referenceTarget();
  reversed = await startStandIn(reference, async (path, forward) => {
    const answer = await forward();
    if (!STATEMENT.test(path) || answer.status !== 200) return answer;
    const page = JSON.parse(answer.text) as { transactions: unknown[] };
    return { ...answer, text: JSON.stringify({ ...page, transactions: page.transactions.reverse() }) };
  });
});
afterAll(async () => {
  await reversed?.close();
  await reference?.close?.();
});

const run = async (target: Target): Promise<CheckResult> =>
  (await runGroup(target, institutionalStatementOrderChecks()))[0]!;

describe('institutional.statement.order', () => {
  it('passes on the reference: funding, out, in, out listed newest first, whole and in pages of two', async () => {
    const result = await run(reference);
    expect(`${result.status}: ${result.reason ?? ''}`).toBe('passed: ');
  });

  it('fails a statement served oldest first, naming both orders', async () => {
    const result = await run(reversed.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /^the statement lists TXN\S+ \(in 5\.00\), TXN\S+ \(out 0\.11\), TXN\S+ \(in 0\.12\), TXN\S+ \(out 0\.13\); stored newest first it is TXN\S+, TXN\S+, TXN\S+ and then the funding \(in 5\.00\); page 1 of 2 lines lists /,
    );
  });
});
