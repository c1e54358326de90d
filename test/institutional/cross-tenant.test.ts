// D-242: institutional.cross_tenant_access passes on the reference, which answers another tenant's account as an
// unknown one (D-128); it fails on a stand-in in front of the reference that refuses an account which exists
// with 403 (an existence leak), and on one that lets the second tenant read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossTenantChecks } from '../../conformance/checks/institutional/cross-tenant.ts';
import { unknownLike } from '../../conformance/checks/support/cross-tenant.ts';
import { request } from '../../conformance/http.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { type Answer, startStandIn } from '../support/stand-in.ts';
import { runGroup } from './support.ts';

const ACCOUNT = /^wallet\/api\/v1\/accounts\/(acc_[0-9A-Z]{26})(\/|\?|$)/;

let reference: Target;
let leaking: Awaited<ReturnType<typeof startStandIn>>;
let open: Awaited<ReturnType<typeof startStandIn>>;

/** Whether the account exists, asked of the reference with its admin token. */
const exists = async (id: string) =>
  (
    await request(reference, `admin/v1/accounts/${id}`, {
      headers: { authorization: `Bearer ${reference.adminToken}` },
    })
  ).status === 200;

beforeAll(async () => {
  reference = await referenceTarget();
  leaking = await startStandIn(reference, async (path, forward) => {
    const answer = await forward();
    const id = ACCOUNT.exec(path)?.[1];
    if (!id || answer.status !== 404 || !(await exists(id))) return answer;
    return {
      ...answer,
      status: 403,
      text: JSON.stringify({ error: 'this account is not yours', code: 'PERMISSION_DENIED' }),
    };
  });
  open = await startStandIn(reference, async (path, forward): Promise<Answer> => {
    const answer = await forward();
    const id = ACCOUNT.exec(path)?.[1];
    if (!id || answer.status !== 404 || !(await exists(id))) return answer;
    const own = await request(reference, `admin/v1/accounts/${id}`, {
      headers: { authorization: `Bearer ${reference.adminToken}` },
    });
    return { status: 200, headers: { 'content-type': 'application/json' }, text: own.text };
  });
});
afterAll(async () => {
  await Promise.all([leaking?.close(), open?.close()]);
  await reference?.close?.();
});

const run = async (target: Target): Promise<CheckResult> => (await runGroup(target, crossTenantChecks()))[0]!;

describe('institutional.cross_tenant_access', { timeout: 180_000 }, () => {
  it('passes on the reference', async () => {
    const result = await run(reference);
    expect(`${result.status}: ${result.reason ?? ''}`).toBe('passed: ');
  });

  it('fails a deployment whose refusal tells that the account exists', async () => {
    const result = await run(leaking.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /GET \/accounts\/\{id\} with credential B: the refusal tells that the resource exists \(D-128\)/,
    );
    expect(result.reason).toMatch(/HTTP 403 PERMISSION_DENIED/);
  });

  it("fails a deployment that shows another tenant's account", async () => {
    const result = await run(open.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /GET \/accounts\/\{id\} with credential B: HTTP 200 for credential A's resource, expected a refusal/,
    );
  });

  it('makes an unknown id of the same form', () => {
    const id = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';
    const other = unknownLike(id);
    expect(other).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(other).not.toBe(id);
    expect(unknownLike('TXN20261127-0000ABCD')).toMatch(/^TXN20261127-0000ABC[0-9A-Z]$/);
  });
});
