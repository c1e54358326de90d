/**
 * The quorums of D-037 at several validator-set sizes. At one size a wrong formula can agree with the right
 * one (n = 4: floor(n/3) = floor((n-1)/3) = 1), so the check moves the set through the admin votes
 * (POST /admin/v1/qbft/votes, D-063) to n = 7, 6, 4 and 3, one check each, reads /api/validators and
 * /api/governance there, and votes the set back to what it was. A size the target cannot reach (too few
 * validators the explorer knows) is skipped, never passed (D-173).
 */
import type { Check, CheckContext } from '../../catalogue.ts';
import { currentValidatorSet, moveValidatorSet } from '../../qbft-votes.ts';
import { Unavailable, verdict } from '../define.ts';
import { api, defineCheck, headNumber } from './support.ts';

/** The sizes visited: both sides of every n mod 3 where floor(n/3) and floor((n-1)/3) part (n = 3, 6). */
export const SET_SIZES = [7, 6, 4, 3] as const;

/** D-037: f = floor((n-1)/3), threshold = ceil(2n/3). */
const quorum = (n: number) => ({ f: Math.floor((n - 1) / 3), threshold: Math.ceil((2 * n) / 3) });

/** How many times the two reads are tried for one head: a deployment seals every 2 s, and paced reads take time. */
const STABLE_READ_ATTEMPTS = 5;

/** /api/validators and /api/governance read while the head stayed the same, or undefined when it never did. */
async function readAtOneHead(ctx: CheckContext) {
  for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt++) {
    const head = await headNumber(ctx.target);
    const [listed, governance] = await Promise.all([api(ctx.target, 'validators'), api(ctx.target, 'governance')]);
    if ((await headNumber(ctx.target)) === head) return { listed, governance };
  }
  return undefined;
}

/** Problems of /api/validators and /api/governance against a set of `n` at one stable head. */
async function quorumProblems(ctx: CheckContext, n: number): Promise<string[]> {
  const { f, threshold } = quorum(n);
  const problems: string[] = [];
  const read = await readAtOneHead(ctx);
  if (!read) return [`n = ${n}: the head moved while /api was read, ${STABLE_READ_ATTEMPTS} times`];
  const { listed, governance } = read;
  if (listed.status !== 200) problems.push(`n = ${n}: GET /api/validators answered ${listed.status}`);
  else {
    const list = listed.json as {
      totalValidators: number;
      faultTolerance: number;
      consensusThreshold: number;
      validators: { isActive: boolean }[];
    };
    if (list.totalValidators !== n) problems.push(`n = ${n}: totalValidators ${list.totalValidators}`);
    if (list.faultTolerance !== f)
      problems.push(`n = ${n}: faultTolerance ${list.faultTolerance}, floor((n-1)/3) = ${f}`);
    if (list.consensusThreshold !== threshold)
      problems.push(`n = ${n}: consensusThreshold ${list.consensusThreshold}, ceil(2n/3) = ${threshold}`);
    const active = list.validators.filter((v) => v.isActive).length;
    if (active !== n) problems.push(`n = ${n}: ${active} validators listed as active`);
  }
  if (governance.status !== 200) problems.push(`n = ${n}: GET /api/governance answered ${governance.status}`);
  else {
    const { qbft } = governance.json as { qbft: { n: number; f: number; threshold: number } };
    if (qbft.n !== n) problems.push(`n = ${n}: qbft.n ${qbft.n}`);
    if (qbft.f !== f) problems.push(`n = ${n}: qbft.f ${qbft.f}, floor((n-1)/3) = ${f}`);
    if (qbft.threshold !== threshold)
      problems.push(`n = ${n}: qbft.threshold ${qbft.threshold}, ceil(2n/3) = ${threshold}`);
  }
  return problems;
}

/** One check per size of SET_SIZES: vote the set to n, read the quorums, vote it back. */
export function explorerValidatorSizeChecks(): Check[] {
  return SET_SIZES.map((n) =>
    defineCheck({
      id: `explorer.validators.quorums_at_n${n}`,
      title: `with the set voted to n = ${n}, /api/validators and /api/governance report n, f = ${quorum(n).f} and threshold = ${quorum(n).threshold}; the set is restored`,
      source: { decision: 'D-037' },
      needs: ['base', 'admin'],
      async run(ctx) {
        const original = await currentValidatorSet(ctx.target);
        const listed = await api(ctx.target, 'validators');
        if (listed.status !== 200) return verdict([`GET /api/validators answered ${listed.status}`], listed);
        // Only validators the explorer knows (name, pqcAddress) can join: an unknown one makes it answer 503.
        const known = (listed.json as { validators: { address: string }[] }).validators.map((v) =>
          v.address.toLowerCase(),
        );
        const pool = [...original, ...known.filter((a) => !original.includes(a))];
        if (pool.length < n)
          throw new Unavailable(
            `the explorer knows ${pool.length} validators, fewer than ${n} (the reference stack: SVC_VALIDATORS=${n} or more)`,
          );
        // The original members first, so the set returns with few votes.
        const moved = await moveValidatorSet(ctx.target, pool.slice(0, n));
        const problems = moved ? [moved] : await quorumProblems(ctx, n);
        const restored = await moveValidatorSet(ctx.target, original);
        if (restored) problems.push(`restoring the set of ${original.length}: ${restored}`);
        return verdict(
          problems,
          listed,
          `quorums right at n = ${n}, voted from ${original.length}; the set is back to its ${original.length} members`,
        );
      },
    }),
  );
}
