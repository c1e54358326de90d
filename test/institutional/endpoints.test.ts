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
    const registered = new Map(
      buildCatalogue()
        .list()
        .map((c) => [c.id, c]),
    );
    for (const check of checks) {
      expect(registered.get(check.id)?.surface, check.id).toBe('A');
      expect(check.id).toMatch(/^institutional\./);
      expect(check.severity).toBe('quote' in check.source ? 'MUST' : 'SHOULD');
      expect(check.needs.slice(0, 2)).toEqual(['base', 'admin']);
    }
    expect(checks.length).toBeGreaterThanOrEqual(50);
  });

  it('cover every operation of the spec, the auth matrix and the rate limit', () => {
    const ids = institutionalChecks().map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'institutional.accounts.get.statuses',
        'institutional.statement.statuses',
        'institutional.transfers.list.statuses',
        'institutional.transfers.create.statuses',
        'institutional.transfers.get.statuses',
        'institutional.bank.connect.statuses',
        'institutional.auth.missing_credentials',
        'institutional.auth.malformed_header',
        'institutional.auth.unknown_key',
        'institutional.auth.wrong_signature',
        'institutional.auth.wrong_method_or_path',
        'institutional.auth.timestamp_skew',
        'institutional.auth.missing_permission',
        'institutional.auth.account_not_permitted',
        'institutional.auth.path_forms',
        'institutional.auth.replay',
        'institutional.rate_limit.exceeded',
        'institutional.paging.bounds',
        'institutional.memo.length',
        'institutional.amount.precision',
        'institutional.limits.single_and_daily',
        'institutional.transfer.lifecycle',
        'institutional.memo.encrypted_on_chain',
        'institutional.idempotency.replay',
        'institutional.transfer.broadcast_failure',
        'institutional.transfer.crash_recovery',
        'institutional.sdk.mldsa_client',
        'institutional.sdk.bearer_client',
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
