/**
 * QBFT consensus state of the emulated network: the validator set per block, round-robin proposer
 * selection, and validator votes (D-037, D-063). Besu semantics: a proposal is held by every validator
 * node; each proposer casts one pending vote in the block it seals; a vote passes with more than half
 * the validators (floor(n/2) + 1) and changes the set from the next block on.
 */
import { and, desc, eq, lte } from 'drizzle-orm';
import { getAddress, type Hex } from 'viem';
import type { Database } from '../../storage/database.ts';
import { qbftProposals, qbftValidatorSets, qbftVotes } from '../../storage/schema.ts';
import { SvcError } from '@svckit/sdk/errors';

/** The quorums of a validator set of size n (D-037). */
export function quorums(n: number) {
  return { n, f: Math.floor((n - 1) / 3), threshold: Math.ceil((2 * n) / 3), voteThreshold: Math.floor(n / 2) + 1 };
}

/** A pending proposal (spec: "true = add proposal, false = remove proposal"). */
export type Proposal = { target: Hex; add: boolean; proposedAt: Date };

/** Why a proposal was refused (D-063: a vote that changes nothing is a 400). */
export class ProposalRejected extends SvcError<'PROPOSAL_REJECTED'> {
  override name = 'ProposalRejected';
  /** Builds the error; its code is always `PROPOSAL_REJECTED`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('PROPOSAL_REJECTED', message, options);
  }
}

/** Validator sets, proposals and votes, persisted in the database. */
export class QbftConsensus {
  /** Validator sets sorted by fromBlock, cached (they change rarely). */
  private sets: { fromBlock: number; validators: Hex[] }[] = [];

  private constructor(private readonly db: Database) {}

  /** Loads the state; on a fresh database the genesis set is `genesisValidators` from block 0. */
  static async open(db: Database, genesisValidators: Hex[]): Promise<QbftConsensus> {
    const consensus = new QbftConsensus(db);
    await db
      .insert(qbftValidatorSets)
      .values({ fromBlock: 0, validators: genesisValidators.map((a) => getAddress(a)) })
      .onConflictDoNothing();
    const rows = await db.select().from(qbftValidatorSets).orderBy(qbftValidatorSets.fromBlock);
    consensus.sets = rows.map((r) => ({ fromBlock: r.fromBlock, validators: r.validators as Hex[] }));
    return consensus;
  }

  /** Reads the validator sets again (D-183: another instance, the leader, may have changed them). */
  async refresh(): Promise<void> {
    const rows = await this.db.select().from(qbftValidatorSets).orderBy(qbftValidatorSets.fromBlock);
    this.sets = rows.map((r) => ({ fromBlock: r.fromBlock, validators: r.validators as Hex[] }));
  }

  /** The validator set in force at `blockNumber`, sorted by address. */
  validatorsAt(blockNumber: number): Hex[] {
    let current = this.sets[0]!;
    for (const set of this.sets) if (set.fromBlock <= blockNumber) current = set;
    return [...current.validators].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  }

  /** The round-robin proposer of `blockNumber` (round 0): the sorted set's entry at blockNumber mod n. */
  proposerOf(blockNumber: number): Hex {
    const validators = this.validatorsAt(blockNumber);
    return validators[blockNumber % validators.length]!;
  }

  /** Every address that has ever been a validator (they may write to the chain, D-050). */
  allValidators(): Hex[] {
    return [...new Set(this.sets.flatMap((s) => s.validators))];
  }

  /** Pending proposals, oldest first. */
  async proposals(): Promise<Proposal[]> {
    const rows = await this.db.select().from(qbftProposals).orderBy(qbftProposals.proposedAt);
    return rows.map((r) => ({ target: r.target as Hex, add: r.add, proposedAt: r.proposedAt }));
  }

  /** Proposes adding or removing `target` on every validator node; replaces an earlier proposal for it. */
  async propose(target: Hex, add: boolean, latestBlock: number, now: Date): Promise<Proposal> {
    const address = getAddress(target);
    const isValidator = this.validatorsAt(latestBlock + 1).includes(address);
    if (add && isValidator)
      throw new ProposalRejected(`"validator" ${address} is already a validator; adding it changes nothing`);
    if (!add && !isValidator)
      throw new ProposalRejected(`"validator" ${address} is not a validator; removing it changes nothing`);
    if (!add && this.validatorsAt(latestBlock + 1).length === 1)
      throw new ProposalRejected('the last validator cannot be removed');
    await this.db
      .insert(qbftProposals)
      .values({ target: address, add, proposedAt: now })
      .onConflictDoUpdate({ target: qbftProposals.target, set: { add, proposedAt: now } });
    return { target: address, add, proposedAt: now };
  }

  /**
   * Records that `proposer` sealed `blockNumber`: it casts its vote on the oldest proposal it has not voted
   * on yet; when the tally reaches floor(n/2) + 1 the set changes from blockNumber + 1.
   */
  async onBlockSealed(blockNumber: number, proposer: Hex): Promise<void> {
    const pending = await this.proposals();
    if (pending.length === 0) return;
    const cast = await this.db.select().from(qbftVotes).where(eq(qbftVotes.voter, proposer));
    const proposal = pending.find((p) => !cast.some((v) => v.target === p.target && v.add === p.add));
    if (!proposal) return;
    await this.db
      .insert(qbftVotes)
      .values({ target: proposal.target, voter: proposer, add: proposal.add, blockNumber })
      .onConflictDoUpdate({ target: [qbftVotes.target, qbftVotes.voter], set: { add: proposal.add, blockNumber } });
    const validators = this.validatorsAt(blockNumber);
    const votes = await this.db
      .select()
      .from(qbftVotes)
      .where(
        and(
          eq(qbftVotes.target, proposal.target),
          eq(qbftVotes.add, proposal.add),
          lte(qbftVotes.blockNumber, blockNumber),
        ),
      );
    const tally = votes.filter((v) => validators.includes(v.voter as Hex)).length;
    if (tally < quorums(validators.length).voteThreshold) return;
    const next = proposal.add ? [...validators, proposal.target] : validators.filter((v) => v !== proposal.target);
    await this.db.transaction(async (tx) => {
      await tx
        .insert(qbftValidatorSets)
        .values({ fromBlock: blockNumber + 1, validators: next })
        .onConflictDoUpdate({
          target: qbftValidatorSets.fromBlock,
          set: { validators: next },
        });
      await tx.delete(qbftVotes).where(eq(qbftVotes.target, proposal.target));
      await tx.delete(qbftProposals).where(eq(qbftProposals.target, proposal.target));
    });
    this.sets = (await this.db.select().from(qbftValidatorSets).orderBy(desc(qbftValidatorSets.fromBlock)))
      .reverse()
      .map((r) => ({
        fromBlock: r.fromBlock,
        validators: r.validators as Hex[],
      }));
  }
}
