/**
 * Surface C, the QBFT methods: validator sets by block number and hash, null for unknown blocks (D-074),
 * and validator votes (D-063) proposed through the admin API and watched through qbft_getPendingVotes
 * until the set changes, with the round-robin proposer as each block's miner.
 */
import { getAddress, keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Check, CheckContext, CheckVerdict } from '../../catalogue.ts';
import { request } from '../../http.ts';
import { defineCheck, call, ChainContract, needsReference, result, verdictOf } from './support.ts';

const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}` as Hex;
const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length &&
  [...a]
    .map((x) => x.toLowerCase())
    .sort()
    .join() ===
    [...b]
      .map((x) => x.toLowerCase())
      .sort()
      .join();

/** Validator sets answer non-empty, unique addresses; the block's miner is among them. */
async function validatorsByNumber(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const problems: string[] = [];
  const latest = await result<{ number: Hex; miner: Hex }>(ctx.target, 'eth_getBlockByNumber', ['latest', false]);
  for (const tag of ['latest', 'earliest', latest.number] as const) {
    const set = await result<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockNumber', [tag]);
    problems.push(...contract.validateResult('qbft_getValidatorsByBlockNumber', set).map((e) => `${tag}: ${e}`));
    if (!set?.length) problems.push(`${tag}: expected a non-empty validator set, got ${JSON.stringify(set)}`);
    else if (new Set(set.map((a) => a.toLowerCase())).size !== set.length)
      problems.push(`${tag}: duplicate addresses in ${JSON.stringify(set)}`);
    // The block's miner is its QBFT proposer (chain.openrpc.json Block.miner), so a member of its set.
    if (
      tag === latest.number &&
      BigInt(latest.number) > 0n &&
      !set?.some((a) => a.toLowerCase() === latest.miner.toLowerCase())
    ) {
      problems.push(
        `block ${latest.number} was mined by ${latest.miner}, which is not in its validator set ${JSON.stringify(set)}`,
      );
    }
  }
  return verdictOf(
    problems,
    `validator sets at latest, earliest and ${latest.number} validate; the miner is a validator`,
  );
}

/** The set by hash equals the set by number of the same block. */
async function validatorsByHash(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const problems: string[] = [];
  for (const tag of ['latest', 'earliest']) {
    const block = await result<{ number: Hex; hash: Hex }>(ctx.target, 'eth_getBlockByNumber', [tag, false]);
    const byHash = await result<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockHash', [block.hash]);
    const byNumber = await result<Hex[] | null>(ctx.target, 'qbft_getValidatorsByBlockNumber', [block.number]);
    problems.push(...contract.validateResult('qbft_getValidatorsByBlockHash', byHash));
    if (!byHash?.length || !byNumber || !sameSet(byHash, byNumber)) {
      problems.push(
        `block ${block.number}: by hash ${JSON.stringify(byHash)} differs from by number ${JSON.stringify(byNumber)}`,
      );
    }
  }
  return verdictOf(problems, 'the validator set by hash equals the set by number for the latest and the genesis block');
}

/** D-074: null for a block that does not exist, by number and by hash. */
async function unknownBlockNull(ctx: CheckContext): Promise<CheckVerdict> {
  const contract = await ChainContract.load(ctx);
  const problems: string[] = [];
  const latest = BigInt(await result<Hex>(ctx.target, 'eth_blockNumber'));
  const probes: [string, unknown[]][] = [
    ['qbft_getValidatorsByBlockNumber', [hex(latest + 1_000_000n)]],
    ['qbft_getValidatorsByBlockHash', [keccak256(toHex(`svckit unknown block ${Date.now()}`))]],
  ];
  for (const [method, params] of probes) {
    const x = await call(ctx.target, method, params);
    if (x.error || x.result !== null || !(x.http.json && typeof x.http.json === 'object' && 'result' in x.http.json)) {
      problems.push(`${method}(${JSON.stringify(params)}) expected result null, got ${x.http.text.slice(0, 200)}`);
    }
    problems.push(...contract.validateResult(method, null));
  }
  return verdictOf(problems, 'unknown block number and hash answer null');
}

/** Drives a vote on the reference stack: propose, watch pending votes, mine until the set changes. */
class VoteDriver {
  readonly problems: string[] = [];
  /** Blocks sealed during the check, for the rotation rule. */
  readonly sealed: bigint[] = [];

  constructor(
    private readonly ctx: CheckContext,
    private readonly contract: ChainContract,
  ) {}

  /** POST /admin/v1/qbft/votes (D-063); returns the HTTP status. */
  async propose(validator: Hex, add: boolean): Promise<number> {
    const http = await request(this.ctx.target, 'admin/v1/qbft/votes', {
      body: { validator, add },
      headers: { authorization: `Bearer ${this.ctx.target.adminToken}` },
    });
    return http.status;
  }

  /** qbft_getPendingVotes, validated, with lower-case keys. */
  async pending(): Promise<Record<string, boolean>> {
    const votes = await result<Record<string, boolean>>(this.ctx.target, 'qbft_getPendingVotes');
    this.problems.push(...this.contract.validateResult('qbft_getPendingVotes', votes));
    return Object.fromEntries(Object.entries(votes).map(([k, v]) => [k.toLowerCase(), v]));
  }

  /** Seals one block and returns its number. */
  async mine(): Promise<bigint> {
    await this.ctx.target.reference!.mineBlock();
    const n = BigInt(await result<Hex>(this.ctx.target, 'eth_blockNumber'));
    this.sealed.push(n);
    return n;
  }

  /** Mines until `target`'s proposal leaves the pending votes; returns the block that carried the deciding vote. */
  async mineUntilDecided(target: Hex, limit: number): Promise<bigint | undefined> {
    for (let i = 0; i < limit; i++) {
      const n = await this.mine();
      if (!(target.toLowerCase() in (await this.pending()))) return n;
    }
    return undefined;
  }

  /** The validator set at block `n`. */
  async setAt(n: bigint): Promise<Hex[]> {
    return (await result<Hex[] | null>(this.ctx.target, 'qbft_getValidatorsByBlockNumber', [hex(n)])) ?? [];
  }

  /** Round-robin: block n's miner is the sorted set's entry at n mod size. Returns the miners seen. */
  async checkRotation(): Promise<string[]> {
    const miners: string[] = [];
    for (const n of this.sealed) {
      const block = await result<{ miner: Hex }>(this.ctx.target, 'eth_getBlockByNumber', [hex(n), false]);
      const sorted = (await this.setAt(n)).map((a) => a.toLowerCase()).sort();
      const expected = sorted[Number(n % BigInt(sorted.length))];
      miners.push(block.miner.toLowerCase());
      if (block.miner.toLowerCase() !== expected)
        this.problems.push(`block ${n}: miner ${block.miner}, round-robin proposer ${expected}`);
    }
    return miners;
  }
}

/** D-063: a vote proposed through the admin API is pending until quorum, then changes the set from the next block. */
async function votes(ctx: CheckContext): Promise<CheckVerdict> {
  const skip = needsReference(ctx);
  if (skip) return skip;
  const contract = await ChainContract.load(ctx);
  const d = new VoteDriver(ctx, contract);
  const before = await d.setAt(BigInt(await result<Hex>(ctx.target, 'eth_blockNumber')));
  const newcomer = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const limit = 3 * (before.length + 1);

  // D-063: a vote that changes nothing is a 400.
  const pointless = await d.propose(before[0]!, true);
  if (pointless !== 400)
    d.problems.push(`proposing to add the current validator ${before[0]} expected 400, got ${pointless}`);
  for (const [add, expectedSize] of [
    [true, before.length + 1],
    [false, before.length],
  ] as const) {
    const status = await d.propose(newcomer, add);
    if (status !== 202)
      return verdictOf(
        [...d.problems, `POST /admin/v1/qbft/votes ${add ? 'add' : 'remove'} ${newcomer} expected 202, got ${status}`],
        '',
      );
    const pending = await d.pending();
    if (pending[newcomer.toLowerCase()] !== add)
      d.problems.push(`qbft_getPendingVotes expected {${newcomer}: ${add}}, got ${JSON.stringify(pending)}`);
    const decided = await d.mineUntilDecided(newcomer, limit);
    if (decided === undefined)
      return verdictOf(
        [...d.problems, `the ${add ? 'add' : 'remove'} vote for ${newcomer} did not pass within ${limit} blocks`],
        '',
      );
    const atDecision = await d.setAt(decided);
    const next = await d.mine();
    const after = await d.setAt(next);
    const wanted = add ? [...before, newcomer] : before;
    // The deciding block still runs on the old set; the change applies from the next block on.
    if (atDecision.some((a) => a.toLowerCase() === newcomer.toLowerCase()) !== !add)
      d.problems.push(`block ${decided} (deciding vote) expected the old set, got ${JSON.stringify(atDecision)}`);
    if (after.length !== expectedSize || !sameSet(after, wanted))
      d.problems.push(`block ${next} expected set ${JSON.stringify(wanted)}, got ${JSON.stringify(after)}`);
    // One full round on the new set, so every member proposes once.
    for (let i = 1; i < expectedSize; i++) await d.mine();
  }
  const miners = await d.checkRotation();
  if (!miners.includes(newcomer.toLowerCase()))
    d.problems.push(`the added validator ${newcomer} never proposed a block while in the set`);
  return verdictOf(
    d.problems,
    `${newcomer} added then removed by vote; ${d.sealed.length} blocks sealed by the round-robin proposer`,
  );
}

/** The QBFT checks. */
export function chainQbftChecks(): Check[] {
  return [
    defineCheck({
      id: 'chain.qbft.validators_by_number',
      title: "qbft_getValidatorsByBlockNumber returns the validator set, which holds the block's miner",
      run: validatorsByNumber,
      source: {
        quote:
          'qbft_getValidatorsByBlockNumber | blockNumber (QUANTITY or TAG) | array of DATA(20) validator addresses',
      },
    }),
    defineCheck({
      id: 'chain.qbft.validators_by_hash',
      title: 'qbft_getValidatorsByBlockHash returns the same set as by number',
      run: validatorsByHash,
      source: { quote: 'qbft_getValidatorsByBlockHash | blockHash (DATA(32)) | array of DATA(20) validator addresses' },
    }),
    defineCheck({
      id: 'chain.qbft.unknown_block_null',
      title: 'qbft_getValidatorsBy* answer null for an unknown block',
      run: unknownBlockNull,
      source: { decision: 'D-074' },
    }),
    defineCheck({
      id: 'chain.qbft.votes',
      title:
        'a vote proposed through the admin API is pending, passes with quorum and changes the set from the next block',
      needs: ['rpc', 'specs', 'admin', 'reference'],
      run: votes,
      source: { decision: 'D-063' },
    }),
  ];
}
