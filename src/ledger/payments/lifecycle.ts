/**
 * The payment lifecycle and the events it emits (D-007 statuses and transitions; D-021 "POST /transfers
 * emits payment.initiated when accepted, payment.settled when confirmed and payment.failed when the broadcast
 * or the transaction fails"). Every transition runs inside the transaction of the change that causes it and
 * writes its event to the outbox there (issue 5: "An event is stored in the same database transaction as the
 * change that causes it").
 */
import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { PaymentEventType, PaymentStatus } from '../../../generated/webhooks/types.gen';
import { conflict } from '../../server/http/errors.ts';
import type { Database } from '../../storage/database.ts';
import { accounts, payments } from '../../storage/schema.ts';
import { emitEvent } from '../../webhooks/outbox.ts';
import { paymentReference } from '../ids.ts';
import { formatUnits } from '../money.ts';
import type { TransferHooks, TransferInput, TransferRow } from '../transfers/engine.ts';
import { paymentPayload, STATUS_OF_EVENT, type PaymentRow } from './payload.ts';

/** Settings of the lifecycle. */
export type PaymentSettings = {
  /** D-049: the platform's BIC, debtor and creditor institution of internal transfers. */
  platformBic: string;
  /** D-049: the native unit's currency code, `SVC` by default. */
  nativeCcy: string;
};

/** Thrown in a settlement's transaction when another worker already started the payment's settlement. */
export class SettlementTaken extends Error {
  override name = 'SettlementTaken';
}

/** The new row's values when a payment is taken in. */
export type NewPayment = Omit<typeof payments.$inferInsert, 'txRef' | 'status' | 'createdAt' | 'updatedAt' | 'creditorAccountId'> & {
  /** The creditor's account id, or a subquery that finds it. */
  creditorAccountId?: string | null | SQL;
};

/** Payment transitions with their events; also the transfer engine's and confirmer's hooks. */
export class PaymentLifecycle implements TransferHooks {
  /** `now` is the injectable clock. */
  constructor(
    private readonly now: () => Date,
    readonly settings: PaymentSettings,
  ) {}

  /** Stores a payment as INITIATED and emits payment.initiated (in `tx`); undefined when the uetr exists. */
  async initiate(tx: Database, values: NewPayment): Promise<PaymentRow | undefined> {
    const now = this.now();
    const [row] = await tx
      .insert(payments)
      .values({ ...values, txRef: paymentReference(now), status: 'INITIATED', createdAt: now, updatedAt: now })
      .onConflictDoNothing({ target: payments.uetr })
      .returning();
    if (row) await emitEvent(tx, paymentPayload('payment.initiated', row), now);
    return row;
  }

  /**
   * Moves the payment from one of `from` to the status of `event` with `change`, and emits `event`, both in
   * `tx`. Undefined when the payment is not in one of `from` (someone else moved it: nothing is emitted twice).
   */
  async transition(tx: Database, uetr: string, from: PaymentStatus[], event: PaymentEventType, change: Partial<PaymentRow> = {}, onlyUnsettled = false): Promise<PaymentRow | undefined> {
    const now = this.now();
    const [row] = await tx
      .update(payments)
      .set({ ...change, status: STATUS_OF_EVENT[event], updatedAt: now })
      .where(and(eq(payments.uetr, uetr), inArray(payments.status, from), onlyUnsettled ? isNull(payments.transferTxRef) : undefined))
      .returning();
    if (row) await emitEvent(tx, paymentPayload(event, row), now);
    return row;
  }

  /** Hook: a transfer was stored. POST /transfers starts a payment; a settlement or return is linked to its payment. */
  stored = async (tx: Database, row: TransferRow, input: TransferInput): Promise<void> => {
    if (row.kind !== 'transfer') return;
    const purpose = input.purpose;
    if (purpose && 'settles' in purpose) {
      // One settling transfer per payment, whichever worker gets here first (several instances on PostgreSQL).
      const [linked] = await tx
        .update(payments)
        .set({ transferTxRef: row.txRef, updatedAt: this.now() })
        .where(and(eq(payments.uetr, purpose.settles), isNull(payments.transferTxRef), inArray(payments.status, ['INITIATED', 'RATE_LOCKED'])))
        .returning({ uetr: payments.uetr });
      if (!linked) throw new SettlementTaken(`payment ${purpose.settles} is already being settled`);
      return;
    }
    if (purpose && 'returns' in purpose) {
      const [linked] = await tx
        .update(payments)
        .set({ returnTxRef: row.txRef, returnReason: purpose.reason ?? null, updatedAt: this.now() })
        .where(and(eq(payments.uetr, purpose.returns), eq(payments.status, 'SETTLED'), isNull(payments.returnTxRef)))
        .returning({ uetr: payments.uetr });
      if (!linked) throw conflict(`payment ${purpose.returns} is already being returned or is no longer SETTLED`, 'NOT_SETTLED');
      return;
    }
    // D-049: a same-currency payment in the native unit between platform institutions.
    const amount = formatUnits(BigInt(row.amountWei), 2);
    const { nativeCcy, platformBic } = this.settings;
    await this.initiate(tx, {
      // spec: "uetr | string | UUID-format end-to-end payment identifier"
      uetr: crypto.randomUUID(),
      source: 'transfer',
      instrAmtCcy: nativeCcy,
      instrAmt: amount,
      settlAmtCcy: nativeCcy,
      settlAmt: amount,
      dbtrInst: platformBic,
      cdtrInst: platformBic,
      debtorAccountId: row.accountId!,
      // Read inside the insert: one statement fewer per transfer.
      creditorAccountId: sql`(select ${accounts.id} from ${accounts} where ${accounts.address} = ${row.toAddress})`,
      transferTxRef: row.txRef,
    });
  };

  /** Hook: a transfer left pending. Its payment settles or fails; a return completes (or is undone when it failed). */
  settled = async (tx: Database, row: TransferRow): Promise<void> => {
    if (row.kind !== 'transfer') return;
    const [payment] = await tx
      .select()
      .from(payments)
      .where(or(eq(payments.transferTxRef, row.txRef), eq(payments.returnTxRef, row.txRef)))
      .for('update');
    if (!payment) return;
    const confirmed = row.status === 'confirmed';
    if (payment.transferTxRef === row.txRef) {
      if (confirmed) {
        // spec: "onChainTxHash | 0x-prefixed hash of the settling transaction", "sttlmTm | ISO 8601 UTC settlement time"
        const sttlmTm = new Date((row.blockTimestamp ?? Math.floor(this.now().getTime() / 1000)) * 1000).toISOString();
        await this.transition(tx, payment.uetr, ['INITIATED', 'RATE_LOCKED'], 'payment.settled', { onChainTxHash: row.txHash, sttlmTm });
      } else {
        // D-072: the hash only when the transaction was mined (and failed); a broadcast failure has none.
        const mined = row.blockNumber !== null;
        await this.transition(tx, payment.uetr, ['INITIATED', 'RATE_LOCKED'], 'payment.failed', {
          failRsn: row.failReason ?? 'the settling transaction failed',
          onChainTxHash: mined ? row.txHash : null,
        });
      }
      return;
    }
    if (confirmed) {
      // D-073: onChainTxHash and sttlmTm keep naming the original settlement; the return's hash is D-062's returnTxHash.
      await this.transition(tx, payment.uetr, ['SETTLED'], 'payment.returned', { returnTxHash: row.txHash });
    } else {
      // The return did not happen: the payment stays SETTLED and may be returned again.
      await tx.update(payments).set({ returnTxRef: null, updatedAt: this.now() }).where(eq(payments.uetr, payment.uetr));
    }
  };
}
