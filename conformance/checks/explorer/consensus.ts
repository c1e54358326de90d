// Explorer checks of /validators and /governance: schemas, the current set against
// qbft_getValidatorsByBlockNumber, blocksProposed against the miners of the last 50 blocks
// (eth_getBlockByNumber), and the quorums of D-037.
import type { Hex } from 'viem';
import type { Check, CheckContext } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import { verdict } from '../define.ts';
import { defineCheck, api, blocksByNumber, headNumber, responseProblems, schemaCheck, rpcResult } from './support.ts';

/** spec: "sampleBlocks (integer, size of the window used for blocksProposed; 50)". */
const SAMPLE_BLOCKS = 50;

type Validator = { address: string; name: string; pqcAddress: string; blocksProposed: number; isActive: boolean };
type ValidatorList = {
  validators: Validator[];
  totalValidators: number;
  faultTolerance: number;
  consensusThreshold: number;
  sampleBlocks: number;
};

/** D-037: f = floor((n-1)/3), threshold = ceil(2n/3). */
const quorum = (n: number) => ({ f: Math.floor((n - 1) / 3), threshold: Math.ceil((2 * n) / 3) });

/**
 * GET `/api/<path>` while the head stands still (read before and after; up to 5 tries on a chain that
 * keeps sealing), so the answer can be compared with the chain at that head.
 */
async function atStableHead(
  ctx: CheckContext,
  path: string,
): Promise<{ res: HttpResult; head: number } | { problem: string }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await headNumber(ctx.target);
    const res = await api(ctx.target, path);
    if ((await headNumber(ctx.target)) === before) return { res, head: before };
  }
  return { problem: `the head moved during each of 5 reads of /${path}` };
}

/** Problems of a validator list (from /validators or /governance) against the chain at `head`. */
async function validatorProblems(ctx: CheckContext, validators: Validator[], head: number): Promise<string[]> {
  const problems: string[] = [];
  const set =
    (await rpcResult<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockNumber', [`0x${head.toString(16)}`])) ?? [];
  const current = new Set(set.map((a) => a.toLowerCase()));
  const active = validators.filter((v) => v.isActive).map((v) => v.address.toLowerCase());
  for (const address of current)
    if (!active.includes(address))
      problems.push(`validator ${address} of qbft_getValidatorsByBlockNumber(${head}) is not listed as active`);
  for (const address of active)
    if (!current.has(address))
      problems.push(`${address} is listed as active but is not in qbft_getValidatorsByBlockNumber(${head})`);
  const numbers = Array.from({ length: Math.min(SAMPLE_BLOCKS, head + 1) }, (_, i) => head - i);
  const counts = new Map<string, number>();
  for (const block of await blocksByNumber(ctx.target, numbers)) {
    if (block) counts.set(block.miner.toLowerCase(), (counts.get(block.miner.toLowerCase()) ?? 0) + 1);
  }
  for (const v of validators) {
    const expected = counts.get(v.address.toLowerCase()) ?? 0;
    if (v.blocksProposed !== expected)
      problems.push(
        `${v.address} blocksProposed ${v.blocksProposed}; it mined ${expected} of blocks ${numbers.at(-1)}..${head}`,
      );
  }
  if (new Set(validators.map((v) => v.address.toLowerCase())).size !== validators.length)
    problems.push('a validator is listed twice');
  return problems;
}

/** The /validators and /governance checks. */
export function explorerConsensusChecks(): Check[] {
  return [
    schemaCheck('/validators', {
      id: 'explorer.validators.schema',
      title: 'GET /api/validators answers 200 with a ValidatorList',
      source: {
        quote:
          'Fields: validators (array of Validator), totalValidators (integer), faultTolerance (integer), consensusThreshold (integer), sampleBlocks (integer, size of the window used for blocksProposed; 50).',
      },
    }),
    defineCheck({
      id: 'explorer.validators.agrees_with_rpc',
      title:
        '/api/validators: the active validators are qbft_getValidatorsByBlockNumber at the head, blocksProposed counts their blocks among the last 50 miners',
      source: { quote: 'blocksProposed (integer, count within the sample window)' },
      async run(ctx) {
        // On the reference chain, seal a few blocks so the proposer rotation shows in the counts.
        for (let i = 0; i < 5 && ctx.target.reference; i++) await ctx.target.reference.mineBlock();
        const read = await atStableHead(ctx, 'validators');
        if ('problem' in read) return verdict([read.problem]);
        const problems = await responseProblems(ctx, '/validators', read.res, 200);
        if (problems.length) return verdict(problems, read.res);
        const list = read.res.json as ValidatorList;
        problems.push(...(await validatorProblems(ctx, list.validators, read.head)));
        const set =
          (await rpcResult<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockNumber', [
            `0x${read.head.toString(16)}`,
          ])) ?? [];
        if (list.totalValidators !== set.length)
          problems.push(`totalValidators ${list.totalValidators}, qbft_getValidatorsByBlockNumber has ${set.length}`);
        return verdict(problems, read.res);
      },
    }),
    defineCheck({
      id: 'explorer.validators.quorums',
      title: '/api/validators faultTolerance = floor((n-1)/3) and consensusThreshold = ceil(2n/3), n = totalValidators',
      source: { decision: 'D-037' },
      async run(ctx) {
        const res = await api(ctx.target, 'validators');
        const problems = await responseProblems(ctx, '/validators', res, 200);
        if (problems.length) return verdict(problems, res);
        const list = res.json as ValidatorList;
        const { f, threshold } = quorum(list.totalValidators);
        if (list.faultTolerance !== f)
          problems.push(`faultTolerance ${list.faultTolerance}, floor((${list.totalValidators}-1)/3) = ${f}`);
        if (list.consensusThreshold !== threshold)
          problems.push(
            `consensusThreshold ${list.consensusThreshold}, ceil(2*${list.totalValidators}/3) = ${threshold}`,
          );
        return verdict(problems, res);
      },
    }),
    schemaCheck('/governance', {
      id: 'explorer.governance.schema',
      title: 'GET /api/governance answers 200 with a GovernanceView (blockPeriodSeconds 2, requestTimeoutSeconds 10)',
      source: {
        quote:
          'Fields: validators (array of Validator) and qbft, an object with n (integer, validator count), f (integer, tolerated faults), threshold (integer), blockPeriodSeconds (integer; 2), requestTimeoutSeconds (integer; 10).',
      },
    }),
    defineCheck({
      id: 'explorer.governance.agrees_with_rpc',
      title:
        '/api/governance: n is the size of qbft_getValidatorsByBlockNumber at the head, f and threshold follow D-037, validators as in /api/validators',
      source: { decision: 'D-037' },
      async run(ctx) {
        const read = await atStableHead(ctx, 'governance');
        if ('problem' in read) return verdict([read.problem]);
        const problems = await responseProblems(ctx, '/governance', read.res, 200);
        if (problems.length) return verdict(problems, read.res);
        const view = read.res.json as { validators: Validator[]; qbft: { n: number; f: number; threshold: number } };
        const set =
          (await rpcResult<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockNumber', [
            `0x${read.head.toString(16)}`,
          ])) ?? [];
        const { f, threshold } = quorum(set.length);
        if (view.qbft.n !== set.length)
          problems.push(`qbft.n ${view.qbft.n}, qbft_getValidatorsByBlockNumber(${read.head}) has ${set.length}`);
        if (view.qbft.f !== f) problems.push(`qbft.f ${view.qbft.f}, floor((n-1)/3) = ${f}`);
        if (view.qbft.threshold !== threshold)
          problems.push(`qbft.threshold ${view.qbft.threshold}, ceil(2n/3) = ${threshold}`);
        problems.push(...(await validatorProblems(ctx, view.validators, read.head)));
        const listed = await api(ctx.target, 'validators');
        const identity = (vs: Validator[]) =>
          JSON.stringify(
            vs.map(({ address, name, pqcAddress, isActive }) => ({ address, name, pqcAddress, isActive })),
          );
        if (
          listed.status === 200 &&
          identity((listed.json as ValidatorList).validators) !== identity(view.validators)
        ) {
          problems.push('the validators (address, name, pqcAddress, isActive) differ from /api/validators');
        }
        return verdict(problems, read.res);
      },
    }),
  ];
}
