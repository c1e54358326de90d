// Surface A conformance on the in-process reference stack (real TLS, Anvil, PGlite or PostgreSQL, the default
// rate limit of 10 requests per second per IP): every endpoint with the statuses it documents, the
// authentication matrix and the rate limit. Every check must run (none skipped) and pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { institutionalChecks } from '../../conformance/checks/institutional/index.ts';
import { institutionalAuthChecks } from '../../conformance/checks/institutional/auth.ts';
import { institutionalEndpointChecks } from '../../conformance/checks/institutional/endpoints.ts';
import { summarise } from '../../conformance/runner.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { nonPasses, runGroup, startTarget } from './support.ts';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  await target?.close?.();
});

describe('institutional checks (catalogue)', () => {
  it('are registered, each with a spec quote (MUST) or a decision (SHOULD), on surface A', () => {
    const checks = institutionalChecks();
    const registered = new Map(buildCatalogue().list().map((c) => [c.id, c]));
    for (const check of checks) {
      expect(registered.get(check.id)?.surface, check.id).toBe('A');
      expect(check.id).toMatch(/^inst\./);
      expect(check.severity).toBe('quote' in check.source ? 'MUST' : 'SHOULD');
      expect(check.needs.slice(0, 2)).toEqual(['base', 'admin']);
    }
    expect(checks.length).toBeGreaterThanOrEqual(50);
  });

  it('cover every operation of the spec, the auth matrix and the rate limit', () => {
    const ids = institutionalChecks().map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'inst.accounts.get.statuses', 'inst.statement.statuses', 'inst.transfers.list.statuses', 'inst.transfers.create.statuses',
        'inst.transfers.get.statuses', 'inst.bank.connect.statuses', 'inst.auth.missing_credentials', 'inst.auth.malformed_header',
        'inst.auth.unknown_key', 'inst.auth.wrong_signature', 'inst.auth.wrong_method_or_path', 'inst.auth.timestamp_skew',
        'inst.auth.missing_permission', 'inst.auth.account_not_permitted', 'inst.auth.path_forms', 'inst.auth.replay',
        'inst.rate_limit.exceeded', 'inst.paging.bounds', 'inst.memo.length', 'inst.amount.precision', 'inst.limits.single_and_daily',
        'inst.transfer.lifecycle', 'inst.memo.encrypted_on_chain', 'inst.idempotency.replay', 'inst.transfer.broadcast_failure',
        'inst.transfer.crash_recovery', 'inst.sdk.mldsa_client', 'inst.sdk.bearer_client',
      ]),
    );
  });
});

describe('institutional endpoints and authentication on the reference stack', () => {
  it('every endpoint answers each status it documents, with contract bodies', async () => {
    const results = await runGroup(target, institutionalEndpointChecks());
    expect(nonPasses(results)).toEqual([]);
    expect(summarise(results)).toEqual({ passed: institutionalEndpointChecks().length, failed: 0, skipped: 0 });
  }, 120_000);

  it('the auth matrix and the rate limit hold', async () => {
    const results = await runGroup(target, institutionalAuthChecks());
    expect(nonPasses(results)).toEqual([]);
    expect(summarise(results)).toEqual({ passed: institutionalAuthChecks().length, failed: 0, skipped: 0 });
  }, 120_000);
});
