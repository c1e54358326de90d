/**
 * Owner bindings (extension). spec rule 4: "Banking and fiat features ... require a verified owner who has
 * completed know-your-customer verification with the operating institution. The wallet identity is then
 * bound to the owner, within limits the owner sets (spending ceiling, allowed counterparties, expiry). The
 * owner can see activity, change limits and revoke." D-083: the institution records owners; D-084:
 * the owner offers, the wallet accepts, one live binding per wallet; status `expired` comes from the clock.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Binding, BindingActivity, BindingList, BindingStatus, Owner } from '@svckit/sdk/wallet';
import { zBindingLimits, zBindingOffer, zMoney, zOwnerRequest, zSvcId } from '@svckit/sdk/wallet/zod';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict, requireUnique } from '../http/guards.ts';
import { identityKey } from './auth-store.ts';
import {
  activityOf,
  bindingById,
  bindingsOf,
  insertBinding,
  isOwner,
  lockIdentity,
  openBindingsOf,
  putOwner,
  updateBinding,
  type AuthorizationRow,
  type BindingRow,
} from './bindings-store.ts';
import { fromMinor, toMinor } from './money.ts';

const limitsSchema = zBindingLimits.extend({ spendingCeiling: zMoney.strict() }).strict();
const offerSchema = zBindingOffer.extend({ limits: limitsSchema }).strict();
const svcIdParams = z.object({ svcId: zSvcId });
const bindingIdParams = z.object({ bindingId: z.uuid() });
const EXPLAIN = {
  'limits.expiresAt': 'an ISO 8601 UTC time such as 2026-12-31T23:59:59.000Z',
  expiresAt: 'an ISO 8601 UTC time such as 2026-12-31T23:59:59.000Z',
  'limits.spendingCeiling.amount': 'a decimal string with at most 2 fraction digits',
  'spendingCeiling.amount': 'a decimal string with at most 2 fraction digits',
  'limits.spendingCeiling.currency': 'an ISO 4217 code such as EUR',
  'spendingCeiling.currency': 'an ISO 4217 code such as EUR',
  walletSvcId: '16 lower-case hex characters',
  kycVerifiedAt: 'an ISO 8601 UTC time such as 2026-11-20T14:05:00.000Z',
  kycReference: '1 to 128 printable ASCII characters',
};

/** A binding's status now: stored pending/active/revoked, or `expired` past its expiry (never stored). */
export function statusAt(row: BindingRow, now: number): BindingStatus {
  if (row.status === 'revoked') return 'revoked';
  return row.expiresAt.getTime() <= now ? 'expired' : row.status;
}

/** The contract view of a binding. */
export function bindingView(row: BindingRow, now: number): Binding {
  return {
    id: row.id,
    ownerSvcId: row.ownerSvcId,
    walletSvcId: row.walletSvcId,
    status: statusAt(row, now),
    limits: {
      spendingCeiling: { amount: fromMinor(row.ceilingMinor), currency: row.currency },
      allowedCounterparties: row.allowedCounterparties ?? null,
      expiresAt: row.expiresAt.toISOString(),
    },
    spent: { amount: fromMinor(row.spentMinor), currency: row.currency },
    createdAt: row.createdAt.toISOString(),
    acceptedAt: row.acceptedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The contract view of an authorisation. */
export function authorizationView(row: AuthorizationRow): BindingActivity['items'][number] {
  return {
    id: row.id,
    bindingId: row.bindingId,
    walletSvcId: row.walletSvcId,
    kind: row.kind as BindingActivity['items'][number]['kind'],
    amount: { amount: fromMinor(row.amountMinor), currency: row.currency },
    counterparty: row.counterparty,
    reference: row.reference,
    status: row.status,
    reason: (row.reason ?? null) as BindingActivity['items'][number]['reason'],
    createdAt: row.createdAt.toISOString(),
  };
}

/** Owners and bindings over the store and the clock. */
export class BindingService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** PUT /owners/{svcId} (operator): D-083. */
  async putOwner(params: unknown, body: unknown): Promise<Owner> {
    const { svcId } = guard(svcIdParams, params, { svcId: '16 lower-case hex characters' });
    const input = guard(strict(zOwnerRequest), body, EXPLAIN);
    const verifiedAt = new Date(input.kycVerifiedAt);
    if (verifiedAt.getTime() > this.clock.now())
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"kycVerifiedAt" expected a time not after now, got "${input.kycVerifiedAt}"`,
      );
    if (!(await identityKey(this.db, svcId)))
      throw new RestError(
        ErrorCode.SVC_ID_NOT_REGISTERED,
        `svcId ${svcId} is not registered: call POST /wallets/register first`,
      );
    const isNew = await putOwner(this.db, {
      svcId,
      kycReference: input.kycReference,
      kycVerifiedAt: verifiedAt,
      updatedAt: new Date(this.clock.now()),
    });
    return { svcId, kycReference: input.kycReference, kycVerifiedAt: verifiedAt.toISOString(), isNew };
  }

  /** POST /bindings (owner): a pending binding with the owner's limits. */
  async offer(ownerSvcId: string, body: unknown): Promise<Binding> {
    if (!(await isOwner(this.db, ownerSvcId)))
      throw new RestError(
        ErrorCode.NOT_AN_OWNER,
        `svcId ${ownerSvcId} is not a KYC-verified owner at the operating institution`,
      );
    const input = guard(offerSchema, body, EXPLAIN);
    const limits = this.checkLimits('limits.', input.limits);
    const now = this.clock.now();
    const row: BindingRow = {
      id: randomUUID(),
      ownerSvcId,
      walletSvcId: input.walletSvcId,
      status: 'pending',
      currency: limits.currency,
      ceilingMinor: limits.ceilingMinor,
      spentMinor: 0n,
      allowedCounterparties: limits.allowedCounterparties,
      expiresAt: limits.expiresAt,
      createdAt: new Date(now),
      acceptedAt: null,
      revokedAt: null,
      updatedAt: new Date(now),
    };
    await this.db.transaction(async (tx) => {
      if (!(await lockIdentity(tx, input.walletSvcId))) {
        throw new RestError(
          ErrorCode.SVC_ID_NOT_REGISTERED,
          `svcId ${input.walletSvcId} is not registered: call POST /wallets/register first`,
        );
      }
      const live = (await openBindingsOf(tx, input.walletSvcId)).find((b) => statusAt(b, now) !== 'expired');
      if (live)
        throw new RestError(
          ErrorCode.BINDING_EXISTS,
          `svcId ${input.walletSvcId} already has a live binding ${live.id}; revoke it first`,
        );
      await insertBinding(tx, row);
    });
    return bindingView(row, now);
  }

  /** GET /bindings. */
  async list(svcId: string): Promise<BindingList> {
    const now = this.clock.now();
    return { items: (await bindingsOf(this.db, svcId)).map((b) => bindingView(b, now)) };
  }

  /** GET /bindings/{id}: either party; anyone else gets 404. */
  async get(svcId: string, params: unknown): Promise<Binding> {
    return bindingView(await this.partyOf(svcId, params), this.clock.now());
  }

  /** POST /bindings/{id}/accept (wallet). */
  async accept(svcId: string, params: unknown): Promise<Binding> {
    const row = await this.partyOf(svcId, params);
    if (row.walletSvcId !== svcId)
      throw new RestError(
        ErrorCode.NOT_BINDING_WALLET,
        `only the wallet ${row.walletSvcId} may accept binding ${row.id}`,
      );
    const now = this.clock.now();
    const status = statusAt(row, now);
    if (status === 'active') return bindingView(row, now);
    if (status !== 'pending')
      throw new RestError(
        ErrorCode.BINDING_STATE_CONFLICT,
        `binding ${row.id} is ${status}; only a pending binding can be accepted`,
      );
    return bindingView(
      await updateBinding(this.db, row.id, { status: 'active', acceptedAt: new Date(now), updatedAt: new Date(now) }),
      now,
    );
  }

  /** PUT /bindings/{id}/limits (owner): spec "change limits". */
  async changeLimits(svcId: string, params: unknown, body: unknown): Promise<Binding> {
    const row = await this.partyOf(svcId, params);
    if (row.ownerSvcId !== svcId)
      throw new RestError(
        ErrorCode.NOT_BINDING_OWNER,
        `only the owner ${row.ownerSvcId} may change the limits of binding ${row.id}`,
      );
    const input = guard(limitsSchema, body, EXPLAIN);
    const now = this.clock.now();
    const status = statusAt(row, now);
    if (status === 'revoked' || status === 'expired')
      throw new RestError(
        ErrorCode.BINDING_STATE_CONFLICT,
        `binding ${row.id} is ${status}; its limits can no longer change`,
      );
    const limits = this.checkLimits('', input);
    if (limits.currency !== row.currency) {
      throw new RestError(
        ErrorCode.CURRENCY_MISMATCH,
        `"spendingCeiling.currency" expected ${row.currency} (the binding's currency), got "${limits.currency}"`,
      );
    }
    const updated = await updateBinding(this.db, row.id, {
      ceilingMinor: limits.ceilingMinor,
      allowedCounterparties: limits.allowedCounterparties,
      expiresAt: limits.expiresAt,
      updatedAt: new Date(now),
    });
    return bindingView(updated, now);
  }

  /** POST /bindings/{id}/revoke (owner): spec "revoke"; idempotent. */
  async revoke(svcId: string, params: unknown): Promise<Binding> {
    const row = await this.partyOf(svcId, params);
    if (row.ownerSvcId !== svcId)
      throw new RestError(ErrorCode.NOT_BINDING_OWNER, `only the owner ${row.ownerSvcId} may revoke binding ${row.id}`);
    const now = this.clock.now();
    if (row.status === 'revoked') return bindingView(row, now);
    return bindingView(
      await updateBinding(this.db, row.id, { status: 'revoked', revokedAt: new Date(now), updatedAt: new Date(now) }),
      now,
    );
  }

  /** GET /bindings/{id}/activity: spec "see activity". */
  async activity(svcId: string, params: unknown): Promise<BindingActivity> {
    const row = await this.partyOf(svcId, params);
    return { bindingId: row.id, items: (await activityOf(this.db, row.id)).map(authorizationView) };
  }

  private async partyOf(svcId: string, params: unknown): Promise<BindingRow> {
    const { bindingId } = guard(bindingIdParams, params, { bindingId: 'a binding id (UUID)' });
    const row = await bindingById(this.db, bindingId);
    if (!row || (row.ownerSvcId !== svcId && row.walletSvcId !== svcId))
      throw new RestError(ErrorCode.BINDING_NOT_FOUND, `no binding ${bindingId} for svcId ${svcId}`);
    return row;
  }

  private checkLimits(prefix: string, limits: z.infer<typeof limitsSchema>) {
    const expiresAt = new Date(limits.expiresAt);
    if (expiresAt.getTime() <= this.clock.now())
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"${prefix}expiresAt" expected a time after now, got "${limits.expiresAt}"`,
      );
    requireUnique(`${prefix}allowedCounterparties`, limits.allowedCounterparties ?? undefined);
    return {
      currency: limits.spendingCeiling.currency,
      ceilingMinor: toMinor(limits.spendingCeiling.amount),
      allowedCounterparties: limits.allowedCounterparties,
      expiresAt,
    };
  }
}
