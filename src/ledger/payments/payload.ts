/**
 * The Payment event payload of each event type (spec "Payment event payload (B)"; D-021: "the payload grows
 * with what the lifecycle has fixed; no field is ever invented before it is known"; D-072, D-073).
 */
import type { PaymentEventPayload, PaymentEventType, PaymentStatus } from '@svckit/sdk/webhooks';
import type { payments } from '../../storage/schema.ts';

/** A stored payment. */
export type PaymentRow = typeof payments.$inferSelect;

/** D-007: the status each event carries. */
export const STATUS_OF_EVENT: Record<PaymentEventType, PaymentStatus> = {
  'payment.initiated': 'INITIATED',
  'payment.rate_locked': 'RATE_LOCKED',
  'payment.settled': 'SETTLED',
  'payment.failed': 'FAILED',
  'payment.returned': 'RETURNED',
};

/**
 * The payload of `event` for `payment` as it stands. Amounts are decimal strings inside and JSON numbers in
 * the payload (spec: "instrAmt | number"); they have at most 2 fraction digits, which a double holds exactly
 * enough to print back the same text.
 */
export function paymentPayload(
  event: PaymentEventType,
  payment: PaymentRow,
): PaymentEventPayload & { event: PaymentEventType; uetr: string } {
  const payload: PaymentEventPayload & { event: PaymentEventType; uetr: string } = {
    event,
    uetr: payment.uetr,
    txRef: payment.txRef,
    status: STATUS_OF_EVENT[event],
    instrAmtCcy: payment.instrAmtCcy,
    instrAmt: Number(payment.instrAmt),
  };
  // D-021: settlAmtCcy and settlAmt from rate_locked on (from initiated on for a same-currency payment).
  if (payment.settlAmt !== null && payment.settlAmtCcy !== null) {
    payload.settlAmtCcy = payment.settlAmtCcy;
    payload.settlAmt = Number(payment.settlAmt);
  }
  const settledFields = event === 'payment.settled' || event === 'payment.returned';
  // D-072: payment.failed carries onChainTxHash when the settling transaction was mined and failed, never sttlmTm.
  if ((settledFields || event === 'payment.failed') && payment.onChainTxHash)
    payload.onChainTxHash = payment.onChainTxHash;
  if (settledFields && payment.sttlmTm) payload.sttlmTm = payment.sttlmTm;
  payload.dbtrInst = payment.dbtrInst;
  payload.cdtrInst = payment.cdtrInst;
  // spec: "failRsn | string | failure reason; present in the payload of payment.failed"; "A payment.settled payload
  // shows every field above except failRsn."
  if (event === 'payment.failed') payload.failRsn = payment.failRsn || 'the payment failed';
  return payload;
}
