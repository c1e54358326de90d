/**
 * `institutional.cross_tenant_access` (known elsewhere as BOLA, and as RESTler's namespace rule): every operation
 * of the contract that takes a resource id — an account in its path or body, a transfer reference — is sent
 * with a second credential for a resource the first credential made or may see. D-015: a key limited to
 * accounts "only sees and moves those accounts"; D-128: "an account outside the list is answered as an unknown
 * one". So the refusal must be the surface's error shape, and say nothing about whether the resource exists:
 * the same status, code and text as for an id that names nothing (D-242).
 */
import { fileURLToPath } from 'node:url';
import type { Check } from '../../catalogue.ts';
import { contractOf } from '../../engine/openapi/contract.ts';
import { judgeAnswer } from '../../engine/openapi/judge-answer.ts';
import type { HttpResult } from '../../http.ts';
import { Unavailable, verdict } from '../define.ts';
import { refusalOf, unknownLike } from '../support/cross-tenant.ts';
import { A_PERMISSIONS, apiKey, type Credential, defineCheck, fixture, inst, WITH_ADMIN } from './support.ts';

/** Body fields of the contract's operations that name an account. */
const ACCOUNT_FIELDS = ['fromAccountId', 'accountId'];

/** The check. */
export function crossTenantChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.cross_tenant_access',
      title:
        "Every operation taking a resource id refuses another credential's resource as it refuses an unknown one, in the error shape",
      source: { decision: 'D-242' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        // Credential A (the fixture's key limited to its sender and recipient) made the first transfer; B is
        // the run's second credential (--second-token), else a key limited to an account A cannot see.
        const second: Credential = ctx.target.secondToken
          ? { bearer: ctx.target.secondToken }
          : { bearer: await apiKey(ctx.target, A_PERMISSIONS, [f.outsider.id]) };
        const owner: Credential = { bearer: f.scoped };
        const resources: Record<string, string> = { id: f.sender.id, reference: f.first.txRef };
        const contract = contractOf(fileURLToPath(ctx.specsDir), 'institutional');
        const problems: string[] = [];
        let judged = 0;
        let last: HttpResult | undefined;
        for (const op of contract.operations.filter((o) => o.security.length > 0)) {
          const params = [...op.route.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
          const body = op.body?.examples[0] as Record<string, unknown> | undefined;
          const fields = ACCOUNT_FIELDS.filter((k) => body && k in body);
          if (params.length === 0 && fields.length === 0) continue;
          const unmapped = params.filter((p) => !(p in resources));
          if (unmapped.length) {
            problems.push(`${op.id}: no resource of credential A for {${unmapped.join('}, {')}}; add it to this check`);
            continue;
          }
          const build = (swap: (id: string) => string) => {
            const path = op.route.replace(/\{(\w+)\}/g, (_, p: string) =>
              encodeURIComponent(swap(resources[p] as string)),
            );
            const sent = body
              ? { ...body, ...Object.fromEntries(fields.map((k) => [k, swap(f.sender.id)])) }
              : undefined;
            return { path, sent };
          };
          const real = build((id) => id);
          const unknownIds = new Map<string, string>();
          const fake = build((id) => {
            if (!unknownIds.has(id)) unknownIds.set(id, unknownLike(id));
            return unknownIds.get(id) as string;
          });
          const send = (credential: Credential, at: { path: string; sent?: unknown }) =>
            inst(ctx.target, op.method, at.path, credential, at.sent === undefined ? {} : { body: at.sent });
          // Reads only for A: a write the owner makes would change the ledger for nothing.
          if (op.method === 'GET') {
            const own = await send(owner, real);
            if (own.status !== 200) {
              problems.push(`${op.id}: credential A itself got HTTP ${own.status} for its own resource, expected 200`);
              continue;
            }
          }
          const foreign = await send(second, real);
          const unknown = await send(second, fake);
          last = foreign;
          judged += 1;
          const where = `${op.id} with credential B`;
          if (foreign.status < 400 || foreign.status >= 500)
            problems.push(`${where}: HTTP ${foreign.status} for credential A's resource, expected a refusal (D-015)`);
          for (const v of judgeAnswer(contract, op, foreign, ['error_shape_conformance', 'status_code_conformance']))
            if (!v.ok) problems.push(`${where}: ${v.check}: ${v.message ?? 'failed'}`);
          const ids = [...unknownIds.keys(), ...unknownIds.values()];
          const a = refusalOf(foreign, ids);
          const b = refusalOf(unknown, ids);
          if (a !== b)
            problems.push(
              `${where}: the refusal tells that the resource exists (D-128): for A's resource "${a}", for an id naming nothing "${b}"`,
            );
        }
        if (judged === 0 && problems.length === 0)
          throw new Unavailable('the contract has no operation taking a resource id');
        return verdict(problems, last);
      },
    }),
  ];
}
