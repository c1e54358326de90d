/**
 * Seals blocks on the embedded node with the QBFT proposer as `miner`: before each block it sets the
 * coinbase to the round-robin proposer (anvil_setCoinbase), then mines (evm_mine). With a block period
 * (spec: "Block period | 2 seconds") it seals on that period, empty blocks included, as QBFT does; with
 * period 0 it seals as soon as a transaction arrives (tests).
 */
import { EventEmitter } from 'node:events';
import type { Hex } from 'viem';
import type { QbftConsensus } from './qbft/consensus.ts';
import { readmitStuckTransactions } from './stuck-transactions.ts';
import type { Upstream } from './upstream.ts';

/** A sealed block, as announced to subscribers (newHeads). */
export type SealedBlock = { number: number; hash: Hex; proposer: Hex };

/** Drives block production on a node started with `--no-mining`. */
export class BlockProducer extends EventEmitter<{ sealed: [SealedBlock] }> {
  private timer: NodeJS.Timeout | undefined;
  private sealing: Promise<SealedBlock> | undefined;
  private wanted = false;
  /** True from a failed background seal (period timer, instant mode) until one succeeds again. */
  private failing = false;

  /** Creates a producer; call start() to begin the block period. */
  constructor(
    private readonly upstream: Upstream,
    private readonly consensus: QbftConsensus,
    private readonly blockTimeSeconds: number,
  ) {
    super();
  }

  /** Starts sealing on the block period (no-op for period 0). */
  start(): void {
    if (this.blockTimeSeconds > 0 && !this.timer) {
      this.timer = setInterval(() => this.sealInBackground(), this.blockTimeSeconds * 1000);
    }
  }

  /** Stops the period timer and waits for a seal in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sealing?.catch(() => undefined);
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
    if (this.blockTimeSeconds === 0) this.sealInBackground();
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
    await this.upstream.call('anvil_setCoinbase', [proposer]);
    await this.upstream.call('evm_mine');
    const block = await this.upstream.call<{ hash: Hex; number: Hex }>('eth_getBlockByNumber', ['latest', false]);
    const sealed = { number: Number(BigInt(block.number)), hash: block.hash, proposer };
    await this.consensus.onBlockSealed(sealed.number, proposer);
    this.emit('sealed', sealed);
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
