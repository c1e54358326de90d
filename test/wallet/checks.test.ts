// The `wallet.*` conformance checks on the in-process reference stack (real TLS, Anvil, PGlite, the
// D-024 rate limits), with real keys made in each check. Every check must run (none skipped) and pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { walletChecks } from '../../conformance/checks/wallet/index.ts';
import { summarise } from '../../conformance/runner.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { extensionFixture, nonPasses, refusedUrl, runGroup, startTarget } from './support.ts';

let target: Target;
beforeAll(async () => {
  target = await startTarget({
    SVC_WALLET_EXTENSION_DIR: extensionFixture(),
    SVC_WALLET_HISTORY_SOURCES: JSON.stringify([
      { chainId: 'bitcoin', kind: 'esplora', url: await refusedUrl(), name: 'mempool-space' },
    ]),
  });
});
afterAll(async () => {
  await target?.close?.();
});

describe('wallet checks (catalogue)', () => {
  it('are registered on surface E, each with a spec quote (MUST) or a decision (SHOULD)', () => {
    const registered = new Map(
      buildCatalogue()
        .list()
        .map((c) => [c.id, c]),
    );
    for (const check of walletChecks()) {
      expect(registered.get(check.id)?.surface, check.id).toBe('E');
      expect(check.id).toMatch(/^wallet\./);
      expect(check.severity).toBe('quote' in check.source ? 'MUST' : 'SHOULD');
      expect(check.needs).toContain('wallet');
    }
  });

  it('cover the wallet session checks the specification calls for', () => {
    expect(walletChecks().map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'wallet.login.full_flow',
        'wallet.login.wrong_ecdsa_sig',
        'wallet.login.wrong_pq_sig',
        'wallet.login.other_identity',
        'wallet.login.nonce_reused',
        'wallet.login.challenge_expired',
        'wallet.register.svc_id_mismatch',
        'wallet.token.forged',
        'wallet.token.expired',
        'wallet.token.alg_none',
        'wallet.token.hs256_public_key',
        'wallet.register.idempotent',
        'wallet.register.private_material',
      ]),
    );
  });
});

describe('wallet session API on the reference stack', () => {
  it('passes every wallet.* check, none skipped', async () => {
    const results = await runGroup(target, walletChecks());
    expect(nonPasses(results)).toEqual([]);
    expect(summarise(results)).toMatchObject({ failed: 0, skipped: 0 });
  }, 300_000);
});
