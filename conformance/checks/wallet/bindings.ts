// Surface E owner bindings (spec rule 4) and their absence (spec rule 3): a self-custodial identity uses every
// wallet feature with no owner but is refused banking features; a KYC-verified owner (recorded with the
// administrator token, D-083) binds a wallet within limits — spending ceiling, allowed counterparties,
// expiry — which the enforcement point applies; the owner sees activity, changes limits and revokes.
import type { Check, CheckContext } from '../../catalogue.ts';
import { registerLeft } from '../../cleanup.ts';
import type { HttpResult } from '../../http.ts';
import { Unavailable, verdict } from '../define.ts';
import { call, defineCheck, expectError, login, problems, WALLET_ADMIN } from './support.ts';

export type Session = Awaited<ReturnType<typeof login>>;

/** Logs in a fresh identity and records it as a KYC-verified owner through the operator token. */
export async function owner(ctx: CheckContext): Promise<Session> {
  if (!ctx.target.adminToken) throw new Unavailable('no administrator token to record a KYC-verified owner');
  const session = await login(ctx.target);
  const res = await call(ctx.target, 'PUT', `/owners/${session.identity.svcId}`, {
    headers: { authorization: `Bearer ${ctx.target.adminToken}` },
    body: {
      kycReference: `KYC-${session.identity.svcId}`,
      kycVerifiedAt: new Date(Date.now() - 86_400_000).toISOString(),
    },
  });
  if (res.status !== 200)
    throw new Error(`PUT /owners/{svcId}: expected 200, got ${res.status} ${res.text.slice(0, 200)}`);
  // D-235: the contract has no operation that removes an owner record, so the run lists it as left.
  registerLeft(ctx.target, {
    kind: 'KYC owner record',
    id: session.identity.svcId,
    why: 'the wallet API has no operation that removes an owner record (D-083)',
  });
  return session;
}

export const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** Owner offers, wallet accepts: the active binding's id. */
export async function bind(
  ctx: CheckContext,
  own: Session,
  wallet: Session,
  limits: Record<string, unknown>,
): Promise<{ id: string; found: string[] }> {
  const offer = await call(ctx.target, 'POST', '/bindings', {
    token: own.token,
    body: { walletSvcId: wallet.identity.svcId, limits },
  });
  const found = await problems(ctx, 'POST /bindings', offer, 201, 'offer');
  const id = (offer.json as { id?: string })?.id ?? '';
  const accepted = await call(ctx.target, 'POST', `/bindings/${id}/accept`, { token: wallet.token });
  found.push(...(await problems(ctx, 'POST /bindings/{bindingId}/accept', accepted, 200, 'accept')));
  if ((accepted.json as { status?: string })?.status !== 'active')
    found.push(`accepted binding expected status active, got ${accepted.text.slice(0, 200)}`);
  return { id, found };
}

const authorize = (ctx: CheckContext, wallet: Session, amount: string, counterparty: string, currency = 'EUR') =>
  call(ctx.target, 'POST', '/banking/authorizations', {
    token: wallet.token,
    body: { kind: 'card', amount: { amount, currency }, counterparty },
  });

/** Adds to `found` the problems of an answer that is not the error `status` with `code` (`what` names the case). */
const refusal =
  (ctx: CheckContext, found: string[]) =>
  async (operation: string, res: HttpResult, status: number, code: string, what: string): Promise<void> => {
    found.push(...(await expectError(ctx, operation, res, status, code, what)));
  };

/** The binding checks. */
export function walletBindingChecks(): Check[] {
  return [
    defineCheck({
      id: 'wallet.binding.self_custody_needs_no_owner',
      title:
        'An identity with no owner registers, logs in, reads history and syncs; only a banking authorisation is refused (403 OWNER_BINDING_REQUIRED)',
      source: { quote: 'needs no identity verification and no owner' },
      async run(ctx) {
        const wallet = await login(ctx.target);
        const found: string[] = [];
        const history = await call(
          ctx.target,
          'GET',
          `/history?chainId=1111111&address=${wallet.identity.chain.address}`,
          { token: wallet.token },
        );
        found.push(...(await problems(ctx, 'GET /history', history, 200)));
        const devices = await call(ctx.target, 'GET', '/sync/devices', { token: wallet.token });
        found.push(...(await problems(ctx, 'GET /sync/devices', devices, 200)));
        const bindings = await call(ctx.target, 'GET', '/bindings', { token: wallet.token });
        found.push(...(await problems(ctx, 'GET /bindings', bindings, 200)));
        const banking = await authorize(ctx, wallet, '1.00', 'merchant:any');
        found.push(...(await expectError(ctx, 'POST /banking/authorizations', banking, 403, 'OWNER_BINDING_REQUIRED')));
        return verdict(found, banking);
      },
    }),
    defineCheck({
      id: 'wallet.binding.requires_kyc_owner',
      title:
        'Only a KYC-verified owner may offer a binding (403 NOT_AN_OWNER); recording an owner needs the operator token (401)',
      source: {
        quote:
          'require a verified owner who has completed know-your-customer verification with the operating institution',
      },
      async run(ctx) {
        const [notOwner, wallet] = [await login(ctx.target), await login(ctx.target)];
        const offer = await call(ctx.target, 'POST', '/bindings', {
          token: notOwner.token,
          body: {
            walletSvcId: wallet.identity.svcId,
            limits: {
              spendingCeiling: { amount: '10.00', currency: 'EUR' },
              allowedCounterparties: null,
              expiresAt: future(30),
            },
          },
        });
        const found = await expectError(ctx, 'POST /bindings', offer, 403, 'NOT_AN_OWNER');
        const refused = refusal(ctx, found);
        const selfMade = await call(ctx.target, 'PUT', `/owners/${notOwner.identity.svcId}`, {
          token: notOwner.token,
          body: { kycReference: 'self', kycVerifiedAt: new Date().toISOString() },
        });
        await refused(
          'PUT /owners/{svcId}',
          selfMade,
          401,
          'UNAUTHENTICATED',
          'a session token is not the operator token',
        );
        return verdict(found, selfMade);
      },
    }),
    defineCheck({
      id: 'wallet.binding.limits_enforced',
      title:
        'Under an active binding: within the limits 201; over the ceiling, another counterparty or currency 400 (recorded); after revoke 403',
      source: { quote: 'within limits the owner sets (spending ceiling, allowed counterparties, expiry)' },
      needs: WALLET_ADMIN,
      async run(ctx) {
        const [own, wallet] = [await owner(ctx), await login(ctx.target)];
        const limits = {
          spendingCeiling: { amount: '10.00', currency: 'EUR' },
          allowedCounterparties: ['merchant:acme', 'DE89370400440532013000'],
          expiresAt: future(30),
        };
        const { id, found } = await bind(ctx, own, wallet, limits);
        const refused = refusal(ctx, found);
        const steps: [string, () => Promise<HttpResult>, number, string | null][] = [
          ['within limits', () => authorize(ctx, wallet, '6.50', 'merchant:acme'), 201, null],
          [
            'over the remaining ceiling',
            () => authorize(ctx, wallet, '3.51', 'merchant:acme'),
            400,
            'SPENDING_CEILING_EXCEEDED',
          ],
          [
            'counterparty not allowed',
            () => authorize(ctx, wallet, '1.00', 'merchant:other'),
            400,
            'COUNTERPARTY_NOT_ALLOWED',
          ],
          ['another currency', () => authorize(ctx, wallet, '1.00', 'merchant:acme', 'USD'), 400, 'CURRENCY_MISMATCH'],
          ['exactly the rest', () => authorize(ctx, wallet, '3.50', 'DE89370400440532013000'), 201, null],
        ];
        let last: HttpResult | undefined;
        for (const [what, send, status, code] of steps) {
          last = await send();
          found.push(
            ...(code
              ? await expectError(ctx, 'POST /banking/authorizations', last, status, code, what)
              : await problems(ctx, 'POST /banking/authorizations', last, status, what)),
          );
        }
        const revoked = await call(ctx.target, 'POST', `/bindings/${id}/revoke`, { token: own.token });
        found.push(...(await problems(ctx, 'POST /bindings/{bindingId}/revoke', revoked, 200)));
        last = await authorize(ctx, wallet, '0.01', 'merchant:acme');
        await refused('POST /banking/authorizations', last, 403, 'OWNER_BINDING_REQUIRED', 'after revoke');
        return verdict(found, last);
      },
    }),
    defineCheck({
      id: 'wallet.binding.owner_controls',
      title:
        'The owner sees approved and refused activity, changes limits (the wallet may not) and revokes (the wallet may not)',
      source: { quote: 'The owner can see activity, change limits and revoke.' },
      needs: WALLET_ADMIN,
      async run(ctx) {
        const [own, wallet] = [await owner(ctx), await login(ctx.target)];
        const { id, found } = await bind(ctx, own, wallet, {
          spendingCeiling: { amount: '5.00', currency: 'EUR' },
          allowedCounterparties: null,
          expiresAt: future(30),
        });
        const refused = refusal(ctx, found);
        await authorize(ctx, wallet, '2.00', 'merchant:a');
        await authorize(ctx, wallet, '9.00', 'merchant:b');
        const activity = await call(ctx.target, 'GET', `/bindings/${id}/activity`, { token: own.token });
        found.push(...(await problems(ctx, 'GET /bindings/{bindingId}/activity', activity, 200)));
        const statuses = ((activity.json as { items?: { status: string }[] })?.items ?? []).map((i) => i.status).sort();
        if (statuses.join(',') !== 'approved,refused')
          found.push(`activity expected one approved and one refused item, got ${statuses.join(',')}`);
        const newLimits = {
          spendingCeiling: { amount: '20.00', currency: 'EUR' },
          allowedCounterparties: ['merchant:b'],
          expiresAt: future(60),
        };
        const byWallet = await call(ctx.target, 'PUT', `/bindings/${id}/limits`, {
          token: wallet.token,
          body: newLimits,
        });
        await refused(
          'PUT /bindings/{bindingId}/limits',
          byWallet,
          403,
          'NOT_BINDING_OWNER',
          'the wallet changes its own limits',
        );
        const byOwner = await call(ctx.target, 'PUT', `/bindings/${id}/limits`, { token: own.token, body: newLimits });
        found.push(...(await problems(ctx, 'PUT /bindings/{bindingId}/limits', byOwner, 200)));
        const now = await authorize(ctx, wallet, '9.00', 'merchant:b');
        found.push(...(await problems(ctx, 'POST /banking/authorizations', now, 201, 'under the raised ceiling')));
        const walletRevoke = await call(ctx.target, 'POST', `/bindings/${id}/revoke`, { token: wallet.token });
        await refused(
          'POST /bindings/{bindingId}/revoke',
          walletRevoke,
          403,
          'NOT_BINDING_OWNER',
          'the wallet revokes',
        );
        const stranger = await login(ctx.target);
        const hidden = await call(ctx.target, 'GET', `/bindings/${id}`, { token: stranger.token });
        await refused('GET /bindings/{bindingId}', hidden, 404, 'BINDING_NOT_FOUND', 'a third identity');
        return verdict(found, byOwner);
      },
    }),
    defineCheck({
      id: 'wallet.binding.expiry',
      title: 'A binding past its expiry reads expired and authorises nothing (403)',
      source: { quote: 'within limits the owner sets (spending ceiling, allowed counterparties, expiry)' },
      needs: [...WALLET_ADMIN, 'reference'],
      async run(ctx) {
        const [own, wallet] = [await owner(ctx), await login(ctx.target)];
        const expiresAt = new Date(ctx.target.reference!.now!() + 60_000).toISOString();
        const { id, found } = await bind(ctx, own, wallet, {
          spendingCeiling: { amount: '5.00', currency: 'EUR' },
          allowedCounterparties: null,
          expiresAt,
        });
        const refused = refusal(ctx, found);
        ctx.target.reference!.advanceClock(61_000);
        // The session tokens are 15 minutes: still valid a minute later.
        const res = await authorize(ctx, wallet, '1.00', 'merchant:a');
        await refused('POST /banking/authorizations', res, 403, 'OWNER_BINDING_REQUIRED', 'after expiry');
        const read = await call(ctx.target, 'GET', `/bindings/${id}`, { token: own.token });
        if ((read.json as { status?: string })?.status !== 'expired')
          found.push(`binding expected status expired, got ${read.text.slice(0, 200)}`);
        return verdict(found, res);
      },
    }),
  ];
}
