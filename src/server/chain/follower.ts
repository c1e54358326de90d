/**
 * D-203: the node that runs simulated calls at the head, apart from the node that seals the blocks. A mine on
 * Anvil waits for every call the node is running, so eth_call and eth_estimateGas at the head go to a second
 * Anvil, forked from the sealing node at its newest sealed block and moved to each new one as it is sealed
 * (anvil_reset), and before a call to the sealing node's head when it is behind (a client that saw a receipt reads
 * that block's state). The fork reads the state it needs from the sealing node (short reads); the EVM runs in its own
 * process and holds nothing the sealing node needs. It starts on the first simulated call, so a stack that
 * never simulates never starts it. A call at an older block stays on the sealing node (a fork hands such calls
 * back to its origin), bounded by D-199 and D-200.
 */
import { Instance } from 'prool';
import type { BlockProducer } from '../../node/block-producer.ts';
import { chainAnvilOptions, freePort } from '../../node/anvil.ts';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, Upstream } from '../../node/upstream.ts';

/** Tags that name the newest sealed block on this chain (QBFT blocks are final once sealed; pending: no pool view). */
const HEAD_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);

/** The follower: started on first use, moved to each sealed block, stopped with the stack. */
export class FollowerNode {
  private started: Promise<{ instance: ReturnType<typeof Instance.anvil>; upstream: Upstream }> | undefined;
  private stopped = false;
  /** The block the follower is forked at (its "latest"); undefined before it started. */
  private forkBlock: number | undefined;
  private moving: Promise<void> | undefined;
  private wanted: number | undefined;
  private readonly onSealed = ({ number }: { number: number }) => this.moveTo(number);
  private readonly sealing: Upstream;

  /** A follower of the node at `sealingUrl`, whose blocks `producer` announces. */
  constructor(
    private readonly sealingUrl: string,
    private readonly producer: BlockProducer,
    private readonly timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
  ) {
    this.sealing = new Upstream(sealingUrl, { timeoutMs });
  }

  /**
   * The client of the follower when a call at `block` (a tag, a number, a hash or an EIP-1898 object, or none)
   * is answered there: the head tags and the follower's own block; undefined for an older block or a hash.
   */
  async clientFor(block: unknown): Promise<Upstream | undefined> {
    const atHead = block === undefined || (typeof block === 'string' && HEAD_TAGS.has(block.toLowerCase()));
    const number = typeof block === 'string' && /^0x[0-9a-f]+$/i.test(block) ? Number(BigInt(block)) : undefined;
    if (!atHead && number === undefined) return undefined;
    const { upstream } = await this.start();
    // Read-your-writes: a client that saw a block (its receipt) gets the state of that block or a newer one.
    const head = Number(BigInt(await this.sealing.call<string>('eth_blockNumber')));
    if (this.forkBlock === undefined || this.forkBlock < head) {
      this.moveTo(head);
      await this.moving;
    }
    if (this.forkBlock === undefined || this.forkBlock < head) return undefined;
    if (number !== undefined && number !== this.forkBlock) return undefined;
    return upstream;
  }

  private start() {
    if (this.stopped) return Promise.reject(new Error('the simulation node is stopped'));
    if (!this.started) {
      // A failed start is tried again by a later call; meanwhile calls go to the sealing node (D-203).
      this.started = this.launch();
      this.started.catch((error: Error) => {
        console.warn(
          `svckit: the simulation node did not start; simulated calls go to the sealing node: ${error.message}`,
        );
        this.producer.off('sealed', this.onSealed);
        this.started = undefined;
      });
    }
    return this.started;
  }

  private async launch() {
    // Listening first: a block sealed while the fork starts moves it once it is up.
    this.producer.on('sealed', this.onSealed);
    const head = Number(BigInt(await this.sealing.call<string>('eth_blockNumber')));
    const port = await freePort();
    const instance = Instance.anvil(chainAnvilOptions(port, { forkUrl: this.sealingUrl, forkBlockNumber: head }));
    await instance.start();
    if (this.stopped) {
      await instance.stop();
      throw new Error('the stack stopped while the simulation node started');
    }
    this.forkBlock = head;
    return { instance, upstream: new Upstream(`http://127.0.0.1:${port}`, { timeoutMs: this.timeoutMs }) };
  }

  /** Moves the fork to `block`, one reset at a time; a block sealed meanwhile is taken by the next. */
  private moveTo(block: number): void {
    this.wanted = Math.max(this.wanted ?? block, block);
    if (this.moving || !this.started) return;
    this.moving = (async () => {
      while (!this.stopped && this.wanted !== undefined && this.wanted !== this.forkBlock) {
        const target = this.wanted;
        const { upstream } = await this.started!;
        await upstream.call('anvil_reset', [{ forking: { jsonRpcUrl: this.sealingUrl, blockNumber: target } }]);
        this.forkBlock = target;
      }
    })()
      .catch((error: Error) => {
        if (this.stopped) return;
        console.warn(`svckit: the simulation node could not follow block ${this.wanted}: ${error.message}`);
      })
      .finally(() => {
        this.moving = undefined;
      });
  }

  /** Stops the follower's process, if it ever started. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.producer.off('sealed', this.onSealed);
    await this.moving;
    const started = await this.started?.catch(() => undefined);
    await started?.instance.stop();
  }
}
