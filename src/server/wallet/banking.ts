/**
 * The enforcement point of owner bindings (D-085). spec rule 4: "Banking and fiat features (cash
 * accounts, cards, on/off ramps, remittance) require a verified owner"; every such feature asks here first.
 * spec rule 3: "The self-custodial wallet ... needs no identity verification and no owner" — nothing else in
 * this API looks at a binding. Refusals under a binding are recorded, so the owner sees them as activity.
 */
import { randomUUID } from 'node:crypto';
import type { BankingAuthorization } from '@svckit/sdk/wallet';
import { zBankingAuthorizationRequest, zMoney } from '@svckit/sdk/wallet/zod';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import { authorizationView, statusAt } from './bindings.ts';
import {
  insertAuthorization,
  lockIdentity,
  openBindingsOf,
  updateBinding,
  type AuthorizationRow,
} from './bindings-store.ts';
import { fromMinor, toMinor } from './money.ts';

const requestSchema = zBankingAuthorizationRequest.extend({ amount: zMoney.strict() }).strict();

/** Authorises banking operations against the wallet's active binding. */
export class BankingService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** POST /banking/authorizations: 201 approved; 403 without an active binding; 400 (recorded) outside the limits. */
  async authorize(walletSvcId: string, body: unknown): Promise<BankingAuthorization> {
    const input = guard(requestSchema, body, {
      'amount.amount': 'a decimal string with at most 2 fraction digits',
      'amount.currency': 'an ISO 4217 code such as EUR',
      counterparty: '1 to 128 printable ASCII characters without spaces',
    });
    const amountMinor = toMinor(input.amount.amount);
    if (amountMinor === 0n)
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"amount.amount" expected more than 0, got "${input.amount.amount}"`,
      );
    const now = this.clock.now();
    const outcome = await this.db.transaction(async (tx) => {
      await lockIdentity(tx, walletSvcId);
      const open = await openBindingsOf(tx, walletSvcId);
      const binding = open.find((b) => statusAt(b, now) === 'active');
      if (!binding) {
        const why = open.some((b) => statusAt(b, now) === 'pending')
          ? ' (a binding is pending: accept it first)'
          : open.length
            ? ' (its binding has expired)'
            : '';
        return {
          refusal: new RestError(
            ErrorCode.OWNER_BINDING_REQUIRED,
            `banking and fiat features need an active binding to a KYC-verified owner; svcId ${walletSvcId} has none${why}`,
          ),
        };
      }
      const remaining = binding.ceilingMinor - binding.spentMinor;
      let refusal: RestError | undefined;
      if (input.amount.currency !== binding.currency) {
        refusal = new RestError(
          ErrorCode.CURRENCY_MISMATCH,
          `"amount.currency" expected ${binding.currency} (the binding's currency), got "${input.amount.currency}"`,
        );
      } else if (
        binding.allowedCounterparties !== null &&
        !binding.allowedCounterparties.includes(input.counterparty)
      ) {
        refusal = new RestError(
          ErrorCode.COUNTERPARTY_NOT_ALLOWED,
          `"counterparty" expected one of the binding's allowed counterparties, got "${input.counterparty}"`,
        );
      } else if (amountMinor > remaining) {
        refusal = new RestError(
          ErrorCode.SPENDING_CEILING_EXCEEDED,
          `"amount" ${fromMinor(amountMinor)} ${binding.currency} exceeds the remaining spending ceiling of ${fromMinor(remaining)} ${binding.currency} of binding ${binding.id}`,
        );
      }
      const row: AuthorizationRow = {
        id: randomUUID(),
        bindingId: binding.id,
        walletSvcId,
        kind: input.kind,
        amountMinor,
        currency: input.amount.currency,
        counterparty: input.counterparty,
        reference: input.reference ?? null,
        status: refusal ? 'refused' : 'approved',
        reason: refusal?.code ?? null,
        createdAt: new Date(now),
      };
      await insertAuthorization(tx, row);
      if (!refusal)
        await updateBinding(tx, binding.id, { spentMinor: binding.spentMinor + amountMinor, updatedAt: new Date(now) });
      return { refusal, row };
    });
    if (outcome.refusal) throw outcome.refusal;
    return authorizationView(outcome.row!);
  }
}
