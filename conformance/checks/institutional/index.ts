// The institutional REST API checks (surface A, spec: "Institutional REST paths are relative to
// {base_url}/wallet/api/v1 and require authentication"): every endpoint and the statuses it documents
// against specs/institutional.openapi.yaml, the authentication matrix and the rate limit, the request rules
// (paging, memo, amounts, limits, Idempotency-Key), transfers through to the chain, failure and crash
// recovery on the in-process stack, and a generated SDK client using the svckit signing helper.
import type { Check } from '../../catalogue.ts';
import { institutionalAuthChecks } from './auth.ts';
import { crossTenantChecks } from './cross-tenant.ts';
import { institutionalEndpointChecks } from './endpoints.ts';
import { institutionalRuleChecks } from './rules.ts';
import { institutionalSdkChecks } from './sdk.ts';
import { institutionalStatementOrderChecks } from './statement-order.ts';
import { institutionalTransferChecks } from './transfers.ts';

/** Every `institutional.*` check, in run order (the crash check last: it restarts the stack). */
export function institutionalChecks(): Check[] {
  return [
    ...institutionalEndpointChecks(),
    ...institutionalStatementOrderChecks(),
    ...institutionalAuthChecks(),
    ...crossTenantChecks(),
    ...institutionalRuleChecks(),
    ...institutionalSdkChecks(),
    ...institutionalTransferChecks(),
  ];
}
