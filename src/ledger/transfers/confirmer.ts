/**
 * Moves transfers from pending to confirmed or failed (D-006: a receipt with status 0x1 confirms,
 * 0x0 fails; "A confirmed transfer carries blockNumber and timestamp"), and reconciles after a crash: a
 * pending record the node does not know is sent again from its stored signed bytes (the same hash: it
 * cannot be duplicated). D-078.
 */
import { and, eq, gt, inArray, or } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { ReceiptOrNull } from '@svckit/sdk/chain/types';
import type { Upstream } from '../../node/upstream.ts';
import type { Database } from '../../storage/database.ts';
import { transfers } from '../../storage/schema.ts';
import { NO_TRANSFER_HOOKS, type TransferHooks } from './engine.ts';
import { dbGroup, type Tracing } from '../../server/telemetry/tracing.ts';

type PendingRow = { txRef: string; txHash: string; createdAt: Date };

/** Pending records are checked in pages of this many, one JSON-RPC batch of receipts per page. */
export const CONFIRM_PAGE = 500;

/**
 * D-184: a record this confirmer has seen pending for this long is looked up on the node, and sent again
 * from its stored bytes if the node does not know it (D-078 at run time, not only at a restart): the
 * instance that stored it may have died between the store and the broadcast while the others keep running,
 * and the account's later nonces, allocated by them, wait behind it.
 */
export const RECONCILE_AFTER_MS = 5_000;

/** D-184: at most this many long-pending records are looked up per run. */
const RECONCILE_BATCH = 500;

/** Tracks pending transfers until their receipts arrive. */
export class TransferConfirmer {
  private running: Promise<void> | undefined;
  private again = false;
  /** D-140: pending transfers whose broadcast had no clear outcome, reconciled (D-078) at each run until it completes. */
  private readonly unsure = new Set<string>();
  /** D-184: when this confirmer first saw each pending record (performance.now()); only records still pending. */
  private readonly firstSeen = new Map<string, number>();
  /** D-266, D-267: the stack's tracing (the settlement's query group; the transfers' life spans end). Undefined: traces off. */
  tracing: Tracing | undefined = undefined;

  /**
   * `hooks.settled` runs in the transaction that moves a transfer out of pending (payment events, D-049);
   * `onRebroadcast` hears that transactions were sent again (instant mining seals a block for them).
   */
  constructor(
    private readonly db: Database,
    private readonly upstream: Upstream,
    private readonly hooks: Pick<TransferHooks, 'settled'> = NO_TRANSFER_HOOKS,
    private readonly onRebroadcast: () => void = () => undefined,
  ) {}

  /** D-140: looks the transfer up on the node at the next run and sends it again if the node does not know it. */
  recheck(txRef: string): void {
    this.unsure.add(txRef);
    void this.poke().catch(() => undefined);
  }

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
        // Nobody awaits the extra run: its failure must not escape (the next sealed block or poll runs again).
        this.poke().catch(() => undefined);
      }
    });
    return this.running;
  }

  /** Waits for a run in progress. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  /**
   * Every pending record, oldest first, page by page: records that stay pending for good (a transaction the
   * node dropped or holds back) never keep newer ones from being confirmed.
   */
  private async checkPending(): Promise<void> {
    let after: PendingRow | undefined;
    const now = performance.now();
    const seen = new Map<string, number>();
    const overdue: string[] = [];
    for (;;) {
      const stillPending = eq(transfers.status, 'pending');
      const page = await this.db
        .select({ txRef: transfers.txRef, txHash: transfers.txHash, createdAt: transfers.createdAt })
        .from(transfers)
        .where(
          after
            ? and(
                stillPending,
                or(
                  gt(transfers.createdAt, after.createdAt),
                  and(eq(transfers.createdAt, after.createdAt), gt(transfers.txRef, after.txRef)),
                ),
              )
            : stillPending,
        )
        .orderBy(transfers.createdAt, transfers.txRef)
        .limit(CONFIRM_PAGE);
      for (const { txRef } of page) {
        const first = this.firstSeen.get(txRef) ?? now;
        seen.set(txRef, first);
        if (now - first >= RECONCILE_AFTER_MS && overdue.length < RECONCILE_BATCH) overdue.push(txRef);
      }
      const settled = page.length > 0 ? await this.settleMined(page) : [];
      for (const txRef of settled) seen.delete(txRef);
      if (page.length < CONFIRM_PAGE) break;
      after = page.at(-1);
    }
    this.firstSeen.clear();
    for (const [txRef, first] of seen) this.firstSeen.set(txRef, first);
    for (const txRef of overdue) if (seen.has(txRef)) this.unsure.add(txRef);
    if (this.unsure.size === 0) return;
    // A node that fails again throws here: the transfers stay in the set for the next run.
    const unsure = [...this.unsure];
    const { rebroadcast } = await this.reconcile(unsure);
    for (const txRef of unsure) this.unsure.delete(txRef);
    if (rebroadcast > 0) this.onRebroadcast();
  }

  /**
   * Settles the records of `pending` whose receipts the node has (one not yet broadcast simply has none);
   * returns the references of those it found mined.
   */
  private async settleMined(pending: PendingRow[]): Promise<string[]> {
    const receipts = await this.upstream.batchResults<ReceiptOrNull>(
      pending.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.txHash] })),
    );
    const mined = pending
      .map((row, i) => ({ row, receipt: receipts[i]! }))
      .filter((m): m is { row: (typeof pending)[number]; receipt: NonNullable<ReceiptOrNull> } => m.receipt !== null);
    if (mined.length === 0) return [];
    const blockNumbers = [...new Set(mined.map((m) => m.receipt.blockNumber))];
    const blocks = await this.upstream.batchResults<{ timestamp: Hex }>(
      blockNumbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })),
    );
    const timestampOf = new Map(blockNumbers.map((n, i) => [n, Number(BigInt(blocks[i]!.timestamp))]));
    // One update per block and outcome (with instant mining, usually one in all), in one transaction with the
    // payment events of every record it settles (the outbox).
    const groups = new Map<string, { blockNumber: string; confirmed: boolean; txRefs: string[] }>();
    for (const { row, receipt } of mined) {
      const confirmed = receipt.status === '0x1';
      const key = `${receipt.blockNumber}/${confirmed}`;
      const group = groups.get(key) ?? { blockNumber: receipt.blockNumber, confirmed, txRefs: [] };
      group.txRefs.push(row.txRef);
      groups.set(key, group);
    }
    const settledRows: { txRef: string; status: string; blockNumber: number | null }[] = [];
    const settle = () =>
      this.db.transaction(async (tx) => {
        for (const { blockNumber, confirmed, txRefs } of groups.values()) {
          const settled = await tx
            .update(transfers)
            .set({
              status: confirmed ? 'confirmed' : 'failed',
              failReason: confirmed ? null : 'the transaction was mined but reverted (receipt status 0x0)',
              blockNumber: Number(BigInt(blockNumber)),
              blockTimestamp: timestampOf.get(blockNumber)!,
            })
            .where(and(inArray(transfers.txRef, txRefs), eq(transfers.status, 'pending')))
            .returning();
          await this.hooks.settled(tx, settled);
          settledRows.push(...settled);
        }
      });
    // D-267: linked to the life span of every transfer it settles.
    const links = this.tracing
      ? mined.flatMap(({ row }) => {
          const context = this.tracing?.transfers.contextOf(row.txRef);
          return context ? [{ context }] : [];
        })
      : [];
    await dbGroup(this.tracing, 'transfer.settle', settle, { links, root: true });
    for (const row of settledRows) this.tracing?.transfers.settled(row.txRef, row.status, row.blockNumber);
    return mined.map((m) => m.row.txRef);
  }

  /**
   * After a restart (D-078): every pending record (or those of `only`, D-140) is looked up on the node in one
   * batch; one the node does not know is sent again from its stored signed bytes (the same hash: it cannot be
   * duplicated).
   */
  async reconcile(only?: string[]): Promise<{ rebroadcast: number; found: number }> {
    const stillPending = eq(transfers.status, 'pending');
    const pending = await this.db
      .select()
      .from(transfers)
      .where(only ? and(stillPending, inArray(transfers.txRef, only)) : stillPending)
      .orderBy(transfers.nonce);
    let rebroadcast = 0;
    let found = 0;
    for (let i = 0; i < pending.length; i += 500) {
      const chunk = pending.slice(i, i + 500);
      const known = await this.upstream.batchResults<unknown>(
        chunk.map((row) => ({ method: 'eth_getTransactionByHash', params: [row.txHash] })),
      );
      for (const [j, row] of chunk.entries()) {
        if (known[j]) {
          found++;
          continue;
        }
        const answer = await this.upstream.send('eth_sendRawTransaction', [row.signedTx]);
        // "already known": the node has it after all. Anything else (nonce too low: another transaction took
        // the nonce) means this one will never be mined. D-184: a nonce filler stays pending until its nonce is
        // taken, whatever else a node answers, so that any instance may send it at its next run.
        const taken = answer.error && /nonce too low/i.test(answer.error.message);
        if (answer.error && row.kind === 'nonce-filler' && !taken) continue;
        if (answer.error && !/already known/i.test(answer.error.message)) {
          // D-184: another instance's confirmer may have sent these very bytes between the lookup above and
          // this send, and the leader mined them ("nonce too low" for the second copy): the node knows the
          // transaction, so the record is not failed; the next run settles it from its receipt.
          if (await this.upstream.call('eth_getTransactionByHash', [row.txHash])) {
            found++;
            continue;
          }
          const refused = await this.db.transaction(async (tx) => {
            const [failed] = await tx
              .update(transfers)
              .set({ status: 'failed', failReason: `broadcast failed: ${answer.error!.message}` })
              .where(and(eq(transfers.txRef, row.txRef), eq(transfers.status, 'pending')))
              .returning();
            if (failed) await this.hooks.settled(tx, [failed]);
            return failed;
          });
          if (refused) this.tracing?.transfers.settled(refused.txRef, 'failed');
          continue;
        }
        rebroadcast++;
      }
    }
    return { rebroadcast, found };
  }
}
