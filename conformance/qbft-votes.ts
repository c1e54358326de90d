/**
 * The QBFT validator set as the harness moves it (D-037, D-063) and puts it back (D-182): read the set at the
 * head, propose a vote through the admin API and wait until it applies, move the set to a wanted one, and,
 * for a run that may propose votes (the generated admin cases), restore the set the run started with.
 */
import { getAddress, type Hex } from 'viem';
import { registerCreated } from './cleanup.ts';
import { headNumber, rpcResult } from './checks/explorer/support.ts';
import { request } from './http.ts';
import type { Target } from './targets/target.ts';

/** One block sealed (reference) or waited for (a deployment seals every 2 s; 30 s at most). */
export async function nextBlock(target: Target): Promise<void> {
  if (target.reference) return target.reference.mineBlock();
  const start = await headNumber(target);
  for (let waited = 0; waited < 30_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if ((await headNumber(target)) > start) return;
  }
  throw new Error(`no block after ${start} within 30 s`);
}

/** The validator set at the head, lower-case. */
export async function currentValidatorSet(target: Target): Promise<string[]> {
  const at = `0x${(await headNumber(target)).toString(16)}`;
  const set = await rpcResult<Hex[] | null>(target, 'qbft_getValidatorsByBlockNumber', [at]);
  return (set ?? []).map((address) => address.toLowerCase());
}

/** The addresses with a pending vote (GET /admin/v1/qbft/votes). */
async function pendingVotes(target: Target): Promise<string[]> {
  const res = await request(target, 'admin/v1/qbft/votes', {
    headers: { authorization: `Bearer ${target.adminToken}` },
  });
  if (res.status !== 200) throw new Error(`GET /admin/v1/qbft/votes answered ${res.status}: ${res.text.slice(0, 200)}`);
  const { votes } = (res.json as { votes?: { validator: string }[] } | undefined) ?? {};
  return (votes ?? []).map((vote) => vote.validator.toLowerCase());
}

/** Blocks to wait for a vote to apply: more than half the validators vote in blocks they propose, round-robin. */
const blocksFor = (size: number) => 3 * (size + 2);

/**
 * Proposes one vote and waits block by block until the set has changed (the change applies from the next
 * block). Returns a problem, or undefined.
 */
export async function voteAndWait(target: Target, address: string, add: boolean): Promise<string | undefined> {
  const res = await request(target, 'admin/v1/qbft/votes', {
    body: { validator: getAddress(address), add },
    headers: { authorization: `Bearer ${target.adminToken}` },
  });
  const what = `${add ? 'adding' : 'removing'} ${getAddress(address)}`;
  if (res.status !== 202) return `POST /admin/v1/qbft/votes ${what} expected 202, got ${res.status}: ${res.text}`;
  const limit = blocksFor((await currentValidatorSet(target)).length);
  for (let i = 0; i < limit; i++) {
    await nextBlock(target);
    if ((await currentValidatorSet(target)).includes(address.toLowerCase()) === add) return undefined;
  }
  return `the vote ${what} did not change the set within ${limit} blocks`;
}

/** Votes the set to `wanted` (lower-case addresses): removals first while three or more stay, then additions. */
export async function moveValidatorSet(target: Target, wanted: readonly string[]): Promise<string | undefined> {
  const now = await currentValidatorSet(target);
  const adds = wanted.filter((address) => !now.includes(address));
  const removes = now.filter((address) => !wanted.includes(address));
  // Keep at least three members while moving, so no step leaves a set that cannot reach a quorum.
  const removals = removes.map((address): [string, boolean] => [address, false]);
  const additions = adds.map((address): [string, boolean] => [address, true]);
  const steps = now.length - removes.length >= 3 ? [...removals, ...additions] : [...additions, ...removals];
  for (const [address, add] of steps) {
    const problem = await voteAndWait(target, address, add);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Records the validator set at the start of a run that may propose votes, so the run's cleanup puts it back:
 * pending votes are let through (the admin API has no way to withdraw one), then every change is voted back.
 * What cannot be restored is a cleanup failure, listed in the report.
 */
export async function keepValidatorSet(target: Target): Promise<void> {
  const start = await currentValidatorSet(target);
  registerCreated(target, {
    kind: 'QBFT validator set',
    id: `${start.length} validators`,
    undo: async () => {
      let waited = 0;
      for (const limit = blocksFor(start.length); (await pendingVotes(target)).length > 0; waited++) {
        if (waited >= limit)
          throw new Error(`votes still pending after ${limit} blocks: ${(await pendingVotes(target)).join(', ')}`);
        await nextBlock(target);
      }
      // A vote leaves the pending list when it is counted; the set changes from the next block.
      if (waited > 0) await nextBlock(target);
      const now = await currentValidatorSet(target);
      if (now.length === start.length && now.every((address) => start.includes(address))) return 'unchanged';
      const problem = await moveValidatorSet(target, start);
      if (problem) throw new Error(`restoring the set of ${start.length}: ${problem}`);
      const after = await currentValidatorSet(target);
      if (after.length !== start.length || !after.every((address) => start.includes(address)))
        throw new Error(`the set is ${after.join(', ')} after voting back, not ${start.join(', ')}`);
      return undefined;
    },
  });
}
