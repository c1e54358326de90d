/**
 * pacs.008 payments and returns (D-053, D-056, D-062): the intake stores the instruction as INITIATED
 * (payment.initiated in the same transaction), then a worker locks the rate from the FX table
 * (payment.rate_locked, the settlement amount fixed) and settles on chain from the settlement account to the
 * creditor account through the transfer engine (payment.settled or payment.failed come from the engine's and
 * confirmer's transactions). An administrator returns a SETTLED payment (payment.returned).
 * The work is durable: a sweep at start and every few seconds takes up any payment left between two steps.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { Pacs008Request } from '@svckit/sdk/institutional';
import { LedgerError, LedgerErrorCode } from '../errors.ts';
import type { Database } from '../../storage/database.ts';
import { payments, transfers } from '../../storage/schema.ts';
import type { AccountStore } from '../accounts.ts';
import { formatUnits, parseAmount } from '../money.ts';
import type { TransferConfirmer } from '../transfers/confirmer.ts';
import type { TransferEngine } from '../transfers/engine.ts';
import { convert, type FxTable } from './fx.ts';
import { SettlementTaken, type PaymentLifecycle } from './lifecycle.ts';
import type { PaymentRow } from './payload.ts';

/** What the service uses. */
export type PaymentServiceDeps = {
  db: Database;
  lifecycle: PaymentLifecycle;
  engine: TransferEngine;
  confirmer: TransferConfirmer;
  accounts: AccountStore;
  fx: FxTable;
  /** Called after a commit that emitted events (the dispatcher looks at once). */
  emitted: () => void;
  /** Real ms between sweeps. */
  sweepMs?: number;
};

/** A D-062 return that went through. */
export type ReturnResult = { payment: PaymentRow; returnTxHash: string };

/** The wait for a return transaction to be mined (the spec's block period is 2 s). */
const RETURN_TIMEOUT_MS = 60_000;

/** Takes in pacs.008 payments, moves them through their lifecycle, and returns settled payments. */
export class PaymentService {
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  /** Wires the service. */
  constructor(private readonly deps: PaymentServiceDeps) {}

  /** Starts the sweep (and runs one now): payments left mid-way by a restart continue. */
  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.deps.sweepMs ?? 2000);
    this.timer.unref();
    void this.sweep();
  }

  /** Stops the sweep and waits for work in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
    while (this.busy.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /**
   * D-053, D-056: validates and stores the instruction as INITIATED with payment.initiated, in one transaction.
   * `mayUse` throws 403 when the caller's credential may not use an account (D-015).
   */
  async submit(body: Pacs008Request, mayUse: (accountId: string | null) => void): Promise<PaymentRow> {
    const { nativeCcy, platformBic } = this.deps.lifecycle.settings;
    if (body.cdtrAgt !== platformBic)
      throw new LedgerError(
        LedgerErrorCode.INVALID_PARAMETER,
        `"cdtrAgt" expected the platform BIC ${platformBic}, got "${body.cdtrAgt}"`,
      );
    if (body.intrBkSttlmCcy !== nativeCcy && !this.deps.fx.has(body.intrBkSttlmCcy)) {
      throw new LedgerError(
        LedgerErrorCode.UNSUPPORTED_CURRENCY,
        `"intrBkSttlmCcy" expected ${nativeCcy} or a currency with a configured FX rate, got "${body.intrBkSttlmCcy}"`,
      );
    }
    const instrWei = parseAmount('intrBkSttlmAmt', body.intrBkSttlmAmt);
    const settlement = await this.deps.accounts.find(body.sttlmAcct);
    // The caller's check sees unknown (null) and known accounts alike, so a restricted credential cannot tell them apart (D-128).
    mayUse(settlement?.id ?? null);
    if (!settlement)
      throw new LedgerError(
        LedgerErrorCode.UNKNOWN_ACCOUNT,
        `"sttlmAcct" expected an existing account, got "${body.sttlmAcct}"`,
      );
    const creditor = await this.deps.accounts.find(body.cdtrAcct);
    if (!creditor)
      throw new LedgerError(
        LedgerErrorCode.UNKNOWN_ACCOUNT,
        `"cdtrAcct" expected an existing account, got "${body.cdtrAcct}"`,
      );
    const amount = formatUnits(instrWei, 2);
    const sameCurrency = body.intrBkSttlmCcy === nativeCcy;
    const row = await this.deps.db.transaction((tx) =>
      this.deps.lifecycle.initiate(tx, {
        uetr: body.uetr,
        source: 'pacs008',
        instrAmtCcy: body.intrBkSttlmCcy,
        instrAmt: amount,
        // D-021: a same-currency payment carries settlAmtCcy and settlAmt from payment.initiated on.
        settlAmtCcy: sameCurrency ? nativeCcy : null,
        settlAmt: sameCurrency ? amount : null,
        dbtrInst: body.dbtrAgt,
        cdtrInst: body.cdtrAgt,
        debtorAccountId: settlement.id,
        creditorAccountId: creditor.id,
        instruction: body as unknown as Record<string, unknown>,
      }),
    );
    // D-056: "A UETR seen before is a 409."
    if (!row) throw new LedgerError(LedgerErrorCode.DUPLICATE_UETR, `"uetr" payment ${body.uetr} was already received`);
    this.deps.emitted();
    setImmediate(() => void this.process(row.uetr));
    return row;
  }

  /** Takes one payment as far as it can go now: rate lock, then settlement. Never throws. */
  async process(uetr: string): Promise<void> {
    if (this.busy.has(uetr)) return;
    this.busy.add(uetr);
    try {
      await this.advance(uetr);
    } catch (error) {
      if (!(error instanceof SettlementTaken))
        await this.fail(uetr, `settlement failed: ${(error as Error).message}`).catch(() => undefined);
    } finally {
      this.busy.delete(uetr);
    }
  }

  private async advance(uetr: string): Promise<void> {
    const { db, lifecycle, fx } = this.deps;
    const { nativeCcy } = lifecycle.settings;
    let [payment] = await db.select().from(payments).where(eq(payments.uetr, uetr));
    if (payment?.source !== 'pacs008' || payment.transferTxRef !== null) return;
    if (payment.status === 'INITIATED' && payment.instrAmtCcy !== nativeCcy) {
      const rate = fx.get(payment.instrAmtCcy);
      if (!rate) return this.fail(uetr, `no FX rate is configured for ${payment.instrAmtCcy}`);
      const settlWei = convert(parseAmount('instrAmt', payment.instrAmt), rate);
      if (settlWei === 0n)
        return this.fail(
          uetr,
          `${payment.instrAmt} ${payment.instrAmtCcy} is less than 0.01 ${nativeCcy} at the configured rate`,
        );
      // "rate_locked: exchange rate locked; settlement amount fixed"
      payment = await db.transaction((tx) =>
        lifecycle.transition(tx, uetr, ['INITIATED'], 'payment.rate_locked', {
          settlAmtCcy: nativeCcy,
          settlAmt: formatUnits(settlWei, 2),
        }),
      );
      if (!payment) return;
      this.deps.emitted();
    }
    if (!['INITIATED', 'RATE_LOCKED'].includes(payment.status) || payment.settlAmt === null) return;
    const creditor = await this.deps.accounts.find(payment.creditorAccountId!);
    if (!creditor) return this.fail(uetr, `creditor account ${payment.creditorAccountId} no longer exists`);
    const memo =
      typeof payment.instruction?.rmtInf === 'string' && payment.instruction.rmtInf
        ? payment.instruction.rmtInf
        : undefined;
    try {
      await this.deps.engine.create({
        accountId: payment.debtorAccountId,
        to: creditor.address as Hex,
        amountWei: parseAmount('settlAmt', payment.settlAmt),
        ...(memo ? { memo } : {}),
        purpose: { settles: uetr },
      });
    } catch (error) {
      if (error instanceof SettlementTaken) return;
      // The engine refused it (account not approved, a limit, the settlement account's balance): D-021 failRsn.
      if (error instanceof LedgerError) return this.fail(uetr, `settlement refused: ${error.message}`);
      throw error;
    }
    this.deps.emitted();
  }

  /** INITIATED or RATE_LOCKED, not yet settling → FAILED with payment.failed. */
  private async fail(uetr: string, reason: string): Promise<void> {
    const failed = await this.deps.db.transaction((tx) =>
      this.deps.lifecycle.transition(
        tx,
        uetr,
        ['INITIATED', 'RATE_LOCKED'],
        'payment.failed',
        { failRsn: reason },
        true,
      ),
    );
    if (failed) this.deps.emitted();
  }

  /** Every pacs.008 payment that is not settling yet gets processed (after a restart, or a missed kick). */
  async sweep(): Promise<void> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = (async () => {
      const open = await this.deps.db
        .select({ uetr: payments.uetr })
        .from(payments)
        .where(
          and(
            eq(payments.source, 'pacs008'),
            inArray(payments.status, ['INITIATED', 'RATE_LOCKED']),
            isNull(payments.transferTxRef),
          ),
        )
        .limit(100);
      for (const { uetr } of open) await this.process(uetr);
    })()
      .catch(() => undefined)
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** The payment with this UETR, if any. */
  async find(uetr: string): Promise<PaymentRow | undefined> {
    const [row] = await this.deps.db.select().from(payments).where(eq(payments.uetr, uetr));
    return row;
  }

  /**
   * D-062: moves the settled amount back from the creditor account to the account that paid, waits until it is
   * mined and answers with the RETURNED payment (payment.returned is emitted with the confirmation).
   */
  async returnPayment(uetr: string, reason?: string): Promise<ReturnResult> {
    const payment = await this.find(uetr);
    if (!payment) throw new LedgerError(LedgerErrorCode.NOT_FOUND, `payment ${uetr} not found`);
    if (payment.status !== 'SETTLED')
      throw new LedgerError(
        LedgerErrorCode.NOT_SETTLED,
        `payment ${uetr} is ${payment.status}, only SETTLED payments can be returned`,
      );
    if (!payment.creditorAccountId) {
      // D-105: the creditor is an address outside the platform; there is no key to send the return with.
      throw new LedgerError(
        LedgerErrorCode.CREDITOR_NOT_ON_PLATFORM,
        `payment ${uetr} was credited to an address outside the platform; there is no creditor account to return it from`,
      );
    }
    const debtor = await this.deps.accounts.find(payment.debtorAccountId);
    if (!debtor)
      throw new LedgerError(
        LedgerErrorCode.UNKNOWN_ACCOUNT,
        `the account ${payment.debtorAccountId} that paid ${uetr} no longer exists`,
      );
    const row = await this.deps.engine.create({
      accountId: payment.creditorAccountId,
      to: debtor.address as Hex,
      amountWei: parseAmount('settlAmt', payment.settlAmt),
      purpose: { returns: uetr, ...(reason ? { reason } : {}) },
    });
    if (row.status === 'failed')
      throw new LedgerError(
        LedgerErrorCode.RETURN_FAILED,
        `the return transaction of ${uetr} could not be broadcast: ${row.failReason ?? 'unknown reason'}`,
      );
    const done = await this.mined(row.txRef);
    const after = await this.find(uetr);
    if (done !== 'confirmed' || after?.status !== 'RETURNED') {
      throw new LedgerError(
        LedgerErrorCode.RETURN_FAILED,
        `the return transaction ${row.txHash} of ${uetr} ended ${done}; the payment stays SETTLED`,
      );
    }
    this.deps.emitted();
    return { payment: after, returnTxHash: row.txHash };
  }

  /** Waits until the transfer leaves pending (the confirmer settles it as blocks arrive). */
  private async mined(txRef: string): Promise<string> {
    const deadline = performance.now() + RETURN_TIMEOUT_MS;
    for (;;) {
      const [row] = await this.deps.db
        .select({ status: transfers.status })
        .from(transfers)
        .where(eq(transfers.txRef, txRef));
      if (row && row.status !== 'pending') return row.status;
      if (performance.now() > deadline) return 'pending';
      await this.deps.confirmer.poke();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
