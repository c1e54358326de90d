/**
 * Moves broadcast transfers from pending to confirmed or failed (D-006: a receipt with status 0x1 confirms,
 * 0x0 fails; "A confirmed transfer carries blockNumber and timestamp"), and reconciles after a crash: a
 * pending record whose broadcast outcome was never stored is looked up on the node and, if the node does not
 * know it, its stored signed bytes are sent (the same hash: it cannot be duplicated). D-078.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { Upstream } from '../../chain/upstream.ts';
import type { Database } from '../../storage/database.ts';
import { transfers } from '../../storage/schema.ts';
import { NO_TRANSFER_HOOKS, type TransferHooks } from './engine.ts';

type Receipt = { status: Hex; blockNumber: Hex; blockHash: Hex } | null;

/** Tracks pending transfers until their receipts arrive. */
export class TransferConfirmer {
  private running: Promise<void> | undefined;
  private again = false;

  /** `hooks.settled` runs in the transaction that moves a transfer out of pending (payment events, issue 5). */
  constructor(
    private readonly db: Database,
    private readonly upstream: Upstream,
    private readonly hooks: Pick<TransferHooks, 'settled'> = NO_TRANSFER_HOOKS,
  ) {}

  /** Checks the pending transfers now (coalesced: a call during a run schedules one more run). */
  poke(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.checkPending().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.poke();
      }
    });
    return this.running;
  }

  /** Waits for a run in progress. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  private async checkPending(): Promise<void> {
    const pending = await this.db
      .select()
      .from(transfers)
      .where(and(eq(transfers.status, 'pending'), eq(transfers.broadcast, true)))
      .limit(500);
    if (pending.length === 0) return;
    const receipts = await this.upstream.batchResults<Receipt>(pending.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.txHash] })));
    const mined = pending.map((row, i) => ({ row, receipt: receipts[i]! })).filter((m) => m.receipt !== null);
    if (mined.length === 0) return;
    const blockNumbers = [...new Set(mined.map((m) => m.receipt!.blockNumber))];
    const blocks = await this.upstream.batchResults<{ timestamp: Hex }>(blockNumbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })));
    const timestampOf = new Map(blockNumbers.map((n, i) => [n, Number(BigInt(blocks[i]!.timestamp))]));
    for (const { row, receipt } of mined) {
      const confirmed = receipt!.status === '0x1';
      await this.db.transaction(async (tx) => {
        const [updated] = await tx
          .update(transfers)
          .set({
            status: confirmed ? 'confirmed' : 'failed',
            failReason: confirmed ? null : 'the transaction was mined but reverted (receipt status 0x0)',
            blockNumber: Number(BigInt(receipt!.blockNumber)),
            blockTimestamp: timestampOf.get(receipt!.blockNumber)!,
          })
          .where(and(eq(transfers.txRef, row.txRef), eq(transfers.status, 'pending')))
          .returning();
        if (updated) await this.hooks.settled(tx, updated);
      });
    }
  }

  /** After a restart: settles every pending record whose broadcast outcome was not stored (D-078). */
  async reconcile(): Promise<{ rebroadcast: number; found: number }> {
    const unknown = await this.db
      .select()
      .from(transfers)
      .where(and(eq(transfers.status, 'pending'), eq(transfers.broadcast, false)))
      .orderBy(transfers.nonce);
    let rebroadcast = 0;
    let found = 0;
    for (const row of unknown) {
      const onChain = await this.upstream.call<unknown>('eth_getTransactionByHash', [row.txHash]);
      if (!onChain) {
        const answer = await this.upstream.send('eth_sendRawTransaction', [row.signedTx]);
        // "already known": the node has it after all. Anything else (nonce too low: another transaction took
        // the nonce) means this one will never be mined.
        if (answer.error && !/already known/i.test(answer.error.message)) {
          await this.db.transaction(async (tx) => {
            const [failed] = await tx
              .update(transfers)
              .set({ status: 'failed', failReason: `broadcast failed: ${answer.error!.message}` })
              .where(and(eq(transfers.txRef, row.txRef), eq(transfers.status, 'pending')))
              .returning();
            if (failed) await this.hooks.settled(tx, failed);
          });
          continue;
        }
        rebroadcast++;
      } else found++;
      await this.db.update(transfers).set({ broadcast: true }).where(inArray(transfers.txRef, [row.txRef]));
    }
    return { rebroadcast, found };
  }
}
