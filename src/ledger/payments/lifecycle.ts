/**
 * The payment lifecycle and the events it emits (D-007 statuses and transitions; D-021 "POST /transfers
 * emits payment.initiated when accepted, payment.settled when confirmed and payment.failed when the broadcast
 * or the transaction fails"). Every transition runs inside the transaction of the change that causes it and
 * writes its event to the outbox there ("An event is stored in the same database transaction as the
 * change that causes it").
 */
import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { PaymentEventType, PaymentStatus } from '@svckit/sdk/webhooks';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import { LedgerError, LedgerErrorCode } from '../errors.ts';
import type { Database } from '../../storage/database.ts';
import { accounts, payments } from '../../storage/schema.ts';
import { emitEvent, emitEvents, eventCteValues, eventCtes, type PartyEvent } from '../../webhooks/outbox.ts';
import { paymentReference } from '../ids.ts';
import { formatUnits } from '../money.ts';
import type { WithSubquery } from 'drizzle-orm/subquery';
import type { NewTransfer, StoredWith, TransferHooks, TransferInput, TransferRow } from '../transfers/engine.ts';
import { paymentPayload, STATUS_OF_EVENT, type PaymentRow } from './payload.ts';
import { SvcError } from '@svckit/sdk/errors';

/** Settings of the lifecycle. */
export type PaymentSettings = {
  /** D-049: the platform's BIC, debtor and creditor institution of internal transfers. */
  platformBic: string;
  /** D-049: the native unit's currency code, `SVC` by default. */
  nativeCcy: string;
};

/** Thrown in a settlement's transaction when another worker already started the payment's settlement. */
export class SettlementTaken extends SvcError<'SETTLEMENT_TAKEN'> {
  override name = 'SettlementTaken';
  /** Builds the error; its code is always `SETTLEMENT_TAKEN`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('SETTLEMENT_TAKEN', message, options);
  }
}

/** The new row's values when a payment is taken in. */
export type NewPayment = Omit<
  typeof payments.$inferInsert,
  'txRef' | 'status' | 'createdAt' | 'updatedAt' | 'creditorAccountId'
> & {
  /** The creditor's account id, or a subquery that finds it. */
  creditorAccountId?: string | null | SQL;
};

/** An initiated payment as it will read back, for its event's payload: nothing the payload shows is filled in by the database. */
const initiatedRow = (values: NewPayment & { txRef: string; status: 'INITIATED' }) =>
  ({ settlAmtCcy: null, settlAmt: null, onChainTxHash: null, sttlmTm: null, failRsn: null, ...values }) as PaymentRow;

/** Payment transitions with their events; also the transfer engine's and confirmer's hooks. */
export class PaymentLifecycle implements TransferHooks {
  /** Every time (references, timestamps, events) comes from `clock`. */
  constructor(
    private readonly clock: Clock,
    readonly settings: PaymentSettings,
  ) {}

  /** Stores a payment as INITIATED and emits payment.initiated (in `tx`); undefined when the uetr exists. */
  async initiate(tx: Database, values: NewPayment): Promise<PaymentRow | undefined> {
    const now = dateOf(this.clock);
    const stored = {
      ...values,
      txRef: paymentReference(now),
      status: 'INITIATED' as const,
      createdAt: now,
      updatedAt: now,
    };
    // An initiated payment has nothing the database fills in that its payload shows, so the payload is built
    // from the values, and the payment, its event and the event's deliveries go in one statement.
    const payload = paymentPayload('payment.initiated', initiatedRow(stored));
    const storedPayment = tx
      .$with('stored_payment')
      .as(tx.insert(payments).values(stored).onConflictDoNothing({ target: payments.uetr }).returning());
    const query = tx
      .with(storedPayment, ...eventCtes(tx, 'stored_payment', eventCteValues(payload, now)))
      .select()
      .from(storedPayment);
    // A transfer's payment always has the same columns, so PostgreSQL may keep its plan under one name (the
    // pacs.008 intake's columns vary with the instruction, so its statements are planned each time).
    const [row] = await (values.source === 'transfer'
      ? query.prepare('payment_initiate_for_transfer').execute()
      : query);
    return row;
  }

  /**
   * Moves the payment from one of `from` to the status of `event` with `change`, and emits `event`, both in
   * `tx`. Undefined when the payment is not in one of `from` (someone else moved it: nothing is emitted twice).
   */
  async transition(
    tx: Database,
    uetr: string,
    from: PaymentStatus[],
    event: PaymentEventType,
    change: Partial<PaymentRow> = {},
    onlyUnsettled = false,
  ): Promise<PaymentRow | undefined> {
    const now = dateOf(this.clock);
    const [row] = await tx
      .update(payments)
      .set({ ...change, status: STATUS_OF_EVENT[event], updatedAt: now })
      .where(
        and(
          eq(payments.uetr, uetr),
          inArray(payments.status, from),
          onlyUnsettled ? isNull(payments.transferTxRef) : undefined,
        ),
      )
      .returning();
    if (row) await emitEvent(tx, paymentPayload(event, row), row, now);
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
        .set({ transferTxRef: row.txRef, updatedAt: dateOf(this.clock) })
        .where(
          and(
            eq(payments.uetr, purpose.settles),
            isNull(payments.transferTxRef),
            inArray(payments.status, ['INITIATED', 'RATE_LOCKED']),
          ),
        )
        .returning({ uetr: payments.uetr });
      if (!linked) throw new SettlementTaken(`payment ${purpose.settles} is already being settled`);
      return;
    }
    if (purpose && 'returns' in purpose) {
      const [linked] = await tx
        .update(payments)
        .set({ returnTxRef: row.txRef, returnReason: purpose.reason ?? null, updatedAt: dateOf(this.clock) })
        .where(and(eq(payments.uetr, purpose.returns), eq(payments.status, 'SETTLED'), isNull(payments.returnTxRef)))
        .returning({ uetr: payments.uetr });
      if (!linked)
        throw new LedgerError(
          LedgerErrorCode.NOT_SETTLED,
          `payment ${purpose.returns} is already being returned or is no longer SETTLED`,
        );
      return;
    }
    await this.initiate(tx, this.paymentOfTransfer(row));
  };

  /**
   * Hook: `stored` for a plain transfer (POST /transfers), as CTEs of the transfer's own insert: the payment
   * reads the transfer's CTE, and the event reads the payment's, so nothing is written unless the transfer is.
   * The CTEs hold placeholders (built and prepared once); `values` fills them for one transfer.
   */
  storedWith: StoredWith = {
    ctes: (db: Database, transferCte: string): WithSubquery[] => {
      const p = sql.placeholder;
      const transfer = sql.identifier(transferCte);
      // D-049: the creditor is the platform account that owns the recipient address, read inside the insert.
      const storedPayment = db.$with('stored_payment', { uetr: sql<string>`uetr` }).as(sql`
        insert into ${payments} (uetr, tx_ref, source, status, instr_amt_ccy, instr_amt, settl_amt_ccy, settl_amt, dbtr_inst, cdtr_inst,
          debtor_account_id, creditor_account_id, transfer_tx_ref, created_at, updated_at)
        select ${p('payment_uetr')}, ${p('payment_tx_ref')}, 'transfer', 'INITIATED', ${p('payment_ccy')}, ${p('payment_amount')}, ${p('payment_ccy')},
          ${p('payment_amount')}, ${p('payment_bic')}, ${p('payment_bic')}, ${transfer}.account_id,
          (select ${accounts.id} from ${accounts} where ${accounts.address} = ${transfer}.to_address), ${transfer}.tx_ref,
          ${p('payment_at')}::timestamptz, ${p('payment_at')}::timestamptz
        from ${transfer}
        returning uetr, debtor_account_id, creditor_account_id`);
      return [storedPayment, ...eventCtes(db, 'stored_payment')];
    },
    values: (transfer: NewTransfer, input: TransferInput): Record<string, unknown> | undefined => {
      if (transfer.kind !== 'transfer' || input.purpose) return undefined;
      const now = dateOf(this.clock);
      const payment = {
        ...this.paymentOfTransfer(transfer),
        txRef: paymentReference(now),
        status: 'INITIATED' as const,
        createdAt: now,
        updatedAt: now,
      };
      return {
        payment_uetr: payment.uetr,
        payment_tx_ref: payment.txRef,
        payment_ccy: payment.instrAmtCcy,
        payment_amount: payment.instrAmt,
        payment_bic: payment.dbtrInst,
        payment_at: now.toISOString(),
        ...eventCteValues(paymentPayload('payment.initiated', initiatedRow(payment)), now),
      };
    },
  };

  /** D-049: the payment of a POST /transfers transfer, a same-currency payment in the native unit between platform institutions. */
  private paymentOfTransfer(transfer: Pick<NewTransfer, 'amountWei' | 'accountId' | 'toAddress' | 'txRef'>) {
    const amount = formatUnits(BigInt(transfer.amountWei), 2);
    const { nativeCcy, platformBic } = this.settings;
    return {
      // spec: "uetr | string | UUID-format end-to-end payment identifier"
      uetr: crypto.randomUUID(),
      source: 'transfer' as const,
      instrAmtCcy: nativeCcy,
      instrAmt: amount,
      settlAmtCcy: nativeCcy,
      settlAmt: amount,
      dbtrInst: platformBic,
      cdtrInst: platformBic,
      debtorAccountId: transfer.accountId!,
      // Read inside the insert: one statement fewer per transfer.
      creditorAccountId: sql`(select ${accounts.id} from ${accounts} where ${accounts.address} = ${transfer.toAddress})`,
      transferTxRef: transfer.txRef,
    };
  }

  /**
   * Hook: transfers left pending. Each one's payment settles or fails; a return completes (or is undone when
   * it failed). The payments are locked, changed and their events written in three statements for the whole
   * batch, however many transfers a block settled.
   */
  settled = async (tx: Database, rows: TransferRow[]): Promise<void> => {
    const byRef = new Map(rows.filter((r) => r.kind === 'transfer').map((r) => [r.txRef, r]));
    if (byRef.size === 0) return;
    const refs = [...byRef.keys()];
    const linked = await tx
      .select()
      .from(payments)
      .where(or(inArray(payments.transferTxRef, refs), inArray(payments.returnTxRef, refs)))
      .for('update');
    const now = dateOf(this.clock);
    const changed: PaymentRow[] = [];
    const events: PartyEvent[] = [];
    for (const payment of linked) {
      const next = this.afterTransfer(payment, byRef);
      if (!next) continue;
      const row = {
        ...payment,
        ...next.change,
        status: next.event ? STATUS_OF_EVENT[next.event] : payment.status,
        updatedAt: now,
      };
      changed.push(row);
      if (next.event) events.push({ payload: paymentPayload(next.event, row), parties: row });
    }
    if (changed.length === 0) return;
    // The rows are locked above, so writing them back whole cannot lose a concurrent change.
    const fromInsert = (column: { name: string }) => sql.raw(`excluded."${column.name}"`);
    await tx
      .insert(payments)
      .values(changed)
      .onConflictDoUpdate({
        target: payments.uetr,
        set: {
          status: fromInsert(payments.status),
          onChainTxHash: fromInsert(payments.onChainTxHash),
          sttlmTm: fromInsert(payments.sttlmTm),
          failRsn: fromInsert(payments.failRsn),
          returnTxHash: fromInsert(payments.returnTxHash),
          returnTxRef: fromInsert(payments.returnTxRef),
          updatedAt: fromInsert(payments.updatedAt),
        },
      });
    await emitEvents(tx, events, now);
  };

  /** What a settled transfer does to its payment (the event, and the change), or undefined for nothing. */
  private afterTransfer(
    payment: PaymentRow,
    byRef: Map<string, TransferRow>,
  ): { event?: PaymentEventType; change: Partial<PaymentRow> } | undefined {
    const settling = payment.transferTxRef ? byRef.get(payment.transferTxRef) : undefined;
    if (settling) {
      if (payment.status !== 'INITIATED' && payment.status !== 'RATE_LOCKED') return undefined;
      if (settling.status === 'confirmed') {
        // spec: "onChainTxHash | 0x-prefixed hash of the settling transaction", "sttlmTm | ISO 8601 UTC settlement time"
        const sttlmTm = new Date((settling.blockTimestamp ?? Math.floor(this.clock.now() / 1000)) * 1000).toISOString();
        return { event: 'payment.settled', change: { onChainTxHash: settling.txHash, sttlmTm } };
      }
      // D-072: the hash only when the transaction was mined (and failed); a broadcast failure has none.
      const mined = settling.blockNumber !== null;
      return {
        event: 'payment.failed',
        change: {
          failRsn: settling.failReason ?? 'the settling transaction failed',
          onChainTxHash: mined ? settling.txHash : null,
        },
      };
    }
    const returning = payment.returnTxRef ? byRef.get(payment.returnTxRef) : undefined;
    if (!returning) return undefined;
    if (returning.status === 'confirmed') {
      // D-073: onChainTxHash and sttlmTm keep naming the original settlement; the return's hash is D-062's returnTxHash.
      return payment.status === 'SETTLED'
        ? { event: 'payment.returned', change: { returnTxHash: returning.txHash } }
        : undefined;
    }
    // The return did not happen: the payment stays SETTLED and may be returned again.
    return { change: { returnTxRef: null } };
  }
}
