/**
 * `wallet.cross_tenant_access`: the wallet API's form of the institutional check (D-242). Every secured operation
 * of the contract whose path names a resource — a binding, a sync device, an identity — is sent with a second
 * identity's session for a resource of the first, and for an id of the same form that names nothing. Spec rule 4
 * lets only the owner and the bound wallet see a binding; spec rule 6 keeps each identity's sync devices its own.
 * The refusal must be in the error shape and say nothing about whether the resource exists. A sync device id is
 * the fingerprint of a key the client chooses, so another identity may register the same one for itself: that
 * write must leave the first identity's device as it was (D-244).
 */
import { mlKem768, toHex } from '@svckit/sdk/crypto';
import { fileURLToPath } from 'node:url';
import type { Check, CheckContext } from '../../catalogue.ts';
import { contractOf, type Operation } from '../../engine/openapi/contract.ts';
import { judgeAnswer } from '../../engine/openapi/judge-answer.ts';
import type { HttpResult } from '../../http.ts';
import { Unavailable, verdict } from '../define.ts';
import { refusalOf, unknownLike } from '../support/cross-tenant.ts';
import { bind, future, owner, type Session } from './bindings.ts';
import { deviceIdOf } from './features.ts';
import { call, defineCheck, login, WALLET_ADMIN } from './support.ts';

/** The path parameters whose values are chosen by the client within its own identity (D-244). */
const CLIENT_CHOSEN = new Set(['PUT /sync/devices/{deviceId}']);

/** Identity A's resources: an offered-and-accepted binding, a sync device, and A itself. */
async function resourcesOf(ctx: CheckContext, a: Session) {
  const wallet = await login(ctx.target);
  const limits = {
    spendingCeiling: { amount: '10.00', currency: 'EUR' },
    allowedCounterparties: null,
    expiresAt: future(30),
  };
  const binding = await bind(ctx, a, wallet, limits);
  if (binding.found.length) throw new Error(`binding identity A to a wallet: ${binding.found.join('; ')}`);
  const device = mlKem768.keygen();
  const deviceId = deviceIdOf(device.publicKey);
  const put = await call(ctx.target, 'PUT', `/sync/devices/${deviceId}`, {
    token: a.token,
    body: { kemPublicKey: toHex(device.publicKey), label: 'identity A' },
  });
  if (put.status !== 200)
    throw new Error(`PUT /sync/devices/{deviceId} for identity A: HTTP ${put.status} ${put.text.slice(0, 200)}`);
  return {
    ids: { bindingId: binding.id, deviceId, svcId: a.identity.svcId } as Record<string, string>,
    deviceBody: { kemPublicKey: toHex(device.publicKey), label: 'identity B' },
  };
}

/** A's sync devices as it sees them, for comparing before and after B's writes. */
async function devicesOf(ctx: CheckContext, a: Session): Promise<string> {
  const res = await call(ctx.target, 'GET', '/sync/devices', { token: a.token });
  return `${res.status} ${JSON.stringify((res.json as { items?: unknown })?.items ?? res.text)}`;
}

/** The check. */
export function walletCrossTenantChecks(): Check[] {
  return [
    defineCheck({
      id: 'wallet.cross_tenant_access',
      title:
        "Every operation taking a resource id refuses another identity's binding, device or identity as it refuses an unknown one, in the error shape",
      source: { decision: 'D-244' },
      needs: WALLET_ADMIN,
      async run(ctx) {
        // A is a KYC-verified owner with a binding to a wallet and a sync device; B is a fresh identity.
        const a = await owner(ctx);
        const { ids, deviceBody } = await resourcesOf(ctx, a);
        const b = await login(ctx.target);
        const contract = contractOf(fileURLToPath(ctx.specsDir), 'wallet');
        const problems: string[] = [];
        let judged = 0;
        let last: HttpResult | undefined;
        const devicesBefore = await devicesOf(ctx, a);
        const ordered = (ops: Operation[]) =>
          // Refused writes that would end a resource (revoke, delete) go last, so a wrong answer to them spoils
          // nothing the other cases use.
          [...ops].sort((x, y) => Number(/revoke|DELETE/.test(x.id)) - Number(/revoke|DELETE/.test(y.id)));
        for (const op of ordered(contract.operations.filter((o) => o.security.length > 0))) {
          const params = [...op.route.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
          if (params.length === 0) continue;
          const unmapped = params.filter((p) => !(p in ids));
          if (unmapped.length) {
            problems.push(`${op.id}: no resource of identity A for {${unmapped.join('}, {')}}; add it to this check`);
            continue;
          }
          const body = CLIENT_CHOSEN.has(op.id) ? deviceBody : op.body?.examples[0];
          const unknownIds = new Map<string, string>();
          const pathWith = (swap: (id: string) => string) =>
            op.route.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(swap(ids[p] as string)));
          const send = (session: Session, path: string) =>
            call(ctx.target, op.method, path, { token: session.token, ...(body === undefined ? {} : { body }) });
          if (op.method === 'GET') {
            const own = await send(
              a,
              pathWith((id) => id),
            );
            if (own.status !== 200) {
              problems.push(`${op.id}: identity A itself got HTTP ${own.status} for its own resource, expected 200`);
              continue;
            }
          }
          const foreign = await send(
            b,
            pathWith((id) => id),
          );
          last = foreign;
          judged += 1;
          const where = `${op.id} with identity B`;
          if (CLIENT_CHOSEN.has(op.id)) {
            // B registers the same key for itself: allowed, and A's device stays as it was.
            if (foreign.status >= 500) problems.push(`${where}: HTTP ${foreign.status}`);
            const after = await devicesOf(ctx, a);
            if (after !== devicesBefore)
              problems.push(`${where}: identity A's sync devices changed: before ${devicesBefore}, after ${after}`);
            if (foreign.status === 200)
              await call(
                ctx.target,
                'DELETE',
                pathWith((id) => id),
                { token: b.token },
              );
            continue;
          }
          const unknown = await send(
            b,
            pathWith((id) => {
              if (!unknownIds.has(id)) unknownIds.set(id, unknownLike(id));
              return unknownIds.get(id) as string;
            }),
          );
          if (foreign.status < 400 || foreign.status >= 500)
            problems.push(
              `${where}: HTTP ${foreign.status} for identity A's resource, expected a refusal (spec rules 4, 6)`,
            );
          for (const v of judgeAnswer(contract, op, foreign, ['error_shape_conformance', 'status_code_conformance']))
            if (!v.ok) problems.push(`${where}: ${v.check}: ${v.message ?? 'failed'}`);
          const known = [...unknownIds.keys(), ...unknownIds.values(), b.identity.svcId];
          const foreignRefusal = refusalOf(foreign, known);
          const unknownRefusal = refusalOf(unknown, known);
          if (foreignRefusal !== unknownRefusal)
            problems.push(
              `${where}: the refusal tells that the resource exists: for A's resource "${foreignRefusal}", for an id naming nothing "${unknownRefusal}"`,
            );
        }
        const devicesAfter = await devicesOf(ctx, a);
        // A's resources are its own test data: revoked and removed, as a QA team would.
        await call(ctx.target, 'POST', `/bindings/${ids.bindingId}/revoke`, { token: a.token });
        await call(ctx.target, 'DELETE', `/sync/devices/${ids.deviceId}`, { token: a.token });
        if (devicesAfter !== devicesBefore)
          problems.push(
            `identity A's sync devices changed during the check: before ${devicesBefore}, after ${devicesAfter}`,
          );
        if (judged === 0 && problems.length === 0)
          throw new Unavailable('the contract has no secured operation taking a resource id');
        return verdict(problems, last);
      },
    }),
  ];
}
