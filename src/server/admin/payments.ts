/**
 * Admin handler for returning a settled payment (D-062; D-007 SETTLED → RETURNED; D-021 payment.returned).
 */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { zAdminReturnPaymentBody, zAdminReturnPaymentPath } from '@svckit/sdk/admin/zod';
import type { PaymentService } from '../../ledger/payments/service.ts';
import { guard, strict } from '../http/guards.ts';

/** The payments handler. */
export function paymentHandlers(payments: PaymentService): Pick<RouteHandlers, 'adminReturnPayment'> {
  return {
    adminReturnPayment: async (request, reply) => {
      const { uetr } = guard(zAdminReturnPaymentPath, request.params, { uetr: 'lower-case UUID v4' });
      // The body is optional (D-062: "optional body {reason}").
      const body = guard(strict(zAdminReturnPaymentBody), request.body ?? {}, {
        reason: 'a string of 1 to 140 characters',
      });
      const { payment, returnTxHash } = await payments.returnPayment(uetr, body.reason);
      return reply
        .code(200)
        .send({ ok: true, uetr: payment.uetr, txRef: payment.txRef, status: 'RETURNED', returnTxHash });
    },
  };
}
