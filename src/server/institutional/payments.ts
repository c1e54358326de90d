/**
 * POST /payments/pacs008 (svckit extension, D-053, D-056): the JSON projection of one pacs.008.001.08 credit
 * transfer, answered 202 once the payment instruction is persisted (status INITIATED, D-007). Settlement
 * continues asynchronously and is reported by webhooks (D-021).
 */
import { z } from 'zod';
import type { RouteHandlers } from '../../../generated/institutional/fastify.gen';
import { zInstitutionalSubmitPacs008PaymentBody } from '@svckit/sdk/institutional/zod';
import type { PaymentService } from '../../ledger/payments/service.ts';
import { authorize } from '../auth/authenticate.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import { credentialOf } from './request-credential.ts';

/** The amount is checked by its own rule; built once (zod compiles each new schema). */
const pacs008Body = zInstitutionalSubmitPacs008PaymentBody.extend({ intrBkSttlmAmt: z.unknown() }).strict();
const BIC = 'a bank identifier code: 4 letters, 2 letters, 2 letters or digits, optional 3 letters or digits';
const ACCOUNT = 'an account id (acc_ + 26 Crockford base32)';
const FIELDS = {
  msgId: 'a string of 1 to 35 characters',
  creDtTm: 'an ISO 8601 date-time',
  sttlmAcct: ACCOUNT,
  instrId: 'a string of 1 to 35 characters',
  endToEndId: 'a string of 1 to 35 characters',
  uetr: 'lower-case UUID v4',
  intrBkSttlmCcy: 'a three-letter upper-case currency code',
  dbtrNm: 'a string of 1 to 140 characters',
  dbtrAgt: BIC,
  cdtrNm: 'a string of 1 to 140 characters',
  cdtrAcct: ACCOUNT,
  cdtrAgt: BIC,
  rmtInf: 'a string of at most 140 characters',
};

/** The pacs.008 intake handler. */
export function paymentHandlers(payments: PaymentService): Pick<RouteHandlers, 'institutionalSubmitPacs008Payment'> {
  return {
    institutionalSubmitPacs008Payment: async (request, reply) => {
      const credential = credentialOf(request);
      authorize(credential, 'payments:write');
      // The amount is left to parseAmount (D-026, D-033) for the INVALID_AMOUNT code and a message naming the rule.
      const body = guard(pacs008Body, request.body, FIELDS);
      const row = await payments.submit(body as Parameters<PaymentService['submit']>[0], (accountId) => {
        // D-128: unknown and outside a restricted credential are one answer, naming only the id given.
        if (credential.accountIds !== null && (accountId === null || !credential.accountIds.includes(accountId))) {
          throw new RestError(ErrorCode.NOT_FOUND, `"sttlmAcct" ${body.sttlmAcct} does not exist`);
        }
      });
      return reply.code(202).send({ ok: true, txRef: row.txRef, uetr: row.uetr, status: 'INITIATED' });
    },
  };
}
