/**
 * Seals blocks on the embedded node with the QBFT proposer as `miner`: before each block it sets the
 * coinbase to the round-robin proposer (anvil_setCoinbase), then mines (evm_mine). With a block period
 * (spec: "Block period | 2 seconds") it seals on that period, empty blocks included, as QBFT does; with
 * period 0 it seals as soon as a transaction arrives (tests).
 *
 * With a leader lease (D-183: several instances share one chain node, SVC_SHARED_CHAIN) only the lease
 * holder seals; the others follow the head: they poll the node and announce each new block as sealed, so
 * their confirmers, explorers and /ws subscribers see the same blocks. With period 0 the holder also seals
 * when the node's pool holds transactions another instance accepted.
 */
import { EventEmitter } from 'node:events';
import type { Hex } from 'viem';
import type { LeaderLease } from './leader-lease.ts';
import type { QbftConsensus } from './qbft/consensus.ts';
import { readmitStuckTransactions } from './stuck-transactions.ts';
import type { Upstream } from './upstream.ts';

/** A sealed block, as announced to subscribers (newHeads). */
export type SealedBlock = { number: number; hash: Hex; proposer: Hex };

/** D-183: how often a follower looks for new blocks, and a period-0 leader for other instances' transactions. */
export const FOLLOW_POLL_MS = 250;

/** D-183: at most this many new blocks are announced per follower poll (the newest ones; the head is what counts). */
const FOLLOW_MAX_BLOCKS = 64;

/** Drives block production on a node started with `--no-mining`. */
export class BlockProducer extends EventEmitter<{ sealed: [SealedBlock] }> {
  private timer: NodeJS.Timeout | undefined;
  private sealing: Promise<SealedBlock> | undefined;
  private wanted = false;
  /** True from a failed background seal (period timer, instant mode) until one succeeds again. */
  private failing = false;
  private followTimer: NodeJS.Timeout | undefined;
  private following: Promise<void> | undefined;
  /** The newest block announced (sealed here or followed); undefined until the first. */
  private announced: number | undefined;

  /**
   * Creates a producer; call start() to begin the block period. `lease`: D-183, seal only while holding it
   * (undefined: this instance is the only one on its node and always seals).
   */
  constructor(
    private readonly upstream: Upstream,
    private readonly consensus: QbftConsensus,
    private readonly blockTimeSeconds: number,
    private readonly lease?: LeaderLease,
  ) {
    super();
    // A new leader may have missed validator votes the previous one recorded.
    lease?.on('change', (held) => {
      if (held) void this.consensus.refresh().catch(() => undefined);
    });
  }

  /** Starts sealing on the block period (no-op for period 0), and with a lease the follower's poll. */
  start(): void {
    if (this.blockTimeSeconds > 0 && !this.timer) {
      this.timer = setInterval(() => {
        if (this.isLeader()) this.sealInBackground();
      }, this.blockTimeSeconds * 1000);
    }
    if (this.lease && !this.followTimer) this.followTimer = setInterval(() => this.pollInBackground(), FOLLOW_POLL_MS);
  }

  /** Stops the timers and waits for a seal or poll in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.followTimer);
    this.timer = undefined;
    this.followTimer = undefined;
    await this.sealing?.catch(() => undefined);
    await this.following;
  }

  /** True when this instance seals blocks: always without a lease, else while holding it (D-183). */
  isLeader(): boolean {
    return this.lease?.isLeader() ?? true;
  }

  /** Seals one block now (serialised: a request during a seal seals one more block after it). */
  async requestBlock(): Promise<SealedBlock> {
    if (this.sealing) {
      this.wanted = true;
      return this.sealing;
    }
    this.sealing = this.sealOne().finally(() => {
      this.sealing = undefined;
      if (this.wanted) {
        this.wanted = false;
        this.sealInBackground();
      }
    });
    return this.sealing;
  }

  /** Called after a transaction was accepted: in instant mode (period 0) it seals a block. */
  onTransaction(): void {
    if (this.blockTimeSeconds === 0 && this.isLeader()) this.sealInBackground();
  }

  /** D-183: a follower announces the blocks the leader sealed; a period-0 leader seals other instances' transactions. */
  private pollInBackground(): void {
    if (this.following) return;
    this.following = (this.isLeader() ? this.sealWaiting() : this.follow())
      .catch(() => undefined)
      .finally(() => {
        this.following = undefined;
      });
  }

  /** Period 0 only: seals a block when the node's pool holds pending transactions (another instance's). */
  private async sealWaiting(): Promise<void> {
    if (this.blockTimeSeconds > 0) return;
    const status = await this.upstream.call<{ pending: Hex }>('txpool_status');
    if (BigInt(status.pending) > 0n) this.sealInBackground();
  }

  /** Announces every block since the last one announced (at most FOLLOW_MAX_BLOCKS, the newest). */
  private async follow(): Promise<void> {
    const head = Number(BigInt(await this.upstream.call<string>('eth_blockNumber')));
    if (this.announced !== undefined && head <= this.announced) return;
    const from = Math.max(this.announced === undefined ? head : this.announced + 1, head - FOLLOW_MAX_BLOCKS + 1);
    const numbers = Array.from({ length: head - from + 1 }, (_, i) => from + i);
    const blocks = await this.upstream.batchResults<{ hash: Hex; number: Hex; miner: Hex }>(
      numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })),
    );
    await this.consensus.refresh();
    for (const block of blocks)
      this.announce({ number: Number(BigInt(block.number)), hash: block.hash, proposer: block.miner });
  }

  private announce(block: SealedBlock): void {
    if (this.announced !== undefined && block.number <= this.announced) return;
    this.announced = block.number;
    this.emit('sealed', block);
  }

  /**
   * Seals with no caller waiting. A failure (the node stopped or unreachable) must not end the process: the
   * gateway already answers ResourceUnavailable while the node is away, and the next period or transaction
   * tries again. It is said once when sealing stops working and once when it works again.
   */
  private sealInBackground(): void {
    this.requestBlock().then(
      (block) => {
        if (this.failing) console.warn(`svckit: sealing works again (block ${block.number})`);
        this.failing = false;
      },
      (error: Error) => {
        if (!this.failing)
          console.warn(`svckit: sealing a block failed; retrying on the next period or transaction: ${error.message}`);
        this.failing = true;
      },
    );
  }

  private async sealOne(): Promise<SealedBlock> {
    const latest = Number(BigInt(await this.upstream.call<string>('eth_blockNumber')));
    const number = latest + 1;
    const proposer = this.consensus.proposerOf(number);
    // D-183: checked again just before mining; a lease lost since the period began seals nothing.
    if (!this.isLeader()) throw new Error('this instance no longer holds the leader lease');
    await this.upstream.call('anvil_setCoinbase', [proposer]);
    await this.upstream.call('evm_mine');
    const block = await this.upstream.call<{ hash: Hex; number: Hex }>('eth_getBlockByNumber', ['latest', false]);
    const sealed = { number: Number(BigInt(block.number)), hash: block.hash, proposer };
    await this.consensus.onBlockSealed(sealed.number, proposer);
    this.announce(sealed);
    // A transaction Anvil wrongly holds back (stuck-transactions.ts) is sent again: in instant mode it gets a
    // block of its own now, otherwise the next period's block takes it. The block itself is sealed either way.
    const readmitted = await readmitStuckTransactions(this.upstream).catch((error: Error) => {
      console.warn(
        `svckit: looking for transactions the node holds back failed (the next block tries again): ${error.message}`,
      );
      return 0;
    });
    if (readmitted > 0) {
      console.warn(
        `svckit: the node held back ${readmitted} transaction(s) that were next in line (an Anvil pool race); sent again`,
      );
      if (this.blockTimeSeconds === 0) this.wanted = true;
    }
    return sealed;
  }
}
