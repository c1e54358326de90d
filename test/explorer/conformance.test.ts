// The explorer checks (surface D) against the in-process reference stack: real Anvil, real TLS, the
// injectable clock. Every check must run (none skipped) and pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { explorerChecks } from '../../conformance/checks/explorer/index.ts';
import { runChecks, summarise } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => {
  await target?.close?.();
});

describe('explorer checks', () => {
  it('are registered in the catalogue, each with a spec quote (MUST) or a decision (SHOULD)', () => {
    const ids = explorerChecks().map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(25);
    expect(ids).toEqual(
      expect.arrayContaining([
        'explorer.stats.schema',
        'explorer.block.bad_id_400',
        'explorer.address.agrees_with_rpc',
        'explorer.txns.cache_window',
      ]),
    );
    const registered = buildCatalogue()
      .list()
      .map((c) => c.id);
    expect(registered).toEqual(expect.arrayContaining(ids));
  });

  it('cover all eight endpoints', () => {
    const endpoints = new Set(explorerChecks().map((c) => c.id.split('.')[1]));
    expect([...endpoints].sort()).toEqual([
      'address',
      'block',
      'blocks',
      'governance',
      'stats',
      'tx',
      'txns',
      'validators',
    ]);
  });

  it('all pass on the reference stack, none skipped', async () => {
    const catalogue = new Catalogue();
    for (const check of explorerChecks()) catalogue.register(check);
    const results = await runChecks(catalogue, target);
    const failures = results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(summarise(results)).toEqual({ passed: explorerChecks().length, failed: 0, skipped: 0 });
  });

  it('run against the same stack given by URL (as for svckit conformance --base): base checks pass, clock-driven ones skip', async () => {
    const remote = remoteTarget({ base: target.base!, caCert: target.caCert! });
    const catalogue = new Catalogue();
    for (const check of explorerChecks()) catalogue.register(check);
    const results = await runChecks(catalogue, remote);
    const byStatus = (status: string) => results.filter((r) => r.status === status).map((r) => r.id);
    expect(byStatus('failed')).toEqual([]);
    expect(byStatus('skipped')).toEqual(
      explorerChecks()
        .filter((c) => c.needs.includes('reference'))
        .map((c) => c.id),
    );
    for (const r of results.filter((r) => r.status === 'skipped')) expect(r.reason).toContain("'reference'");
  });

  it('need only the base origin except those that drive the reference clock or chain', () => {
    const remote = remoteTarget({ base: 'https://svc.example' });
    for (const check of explorerChecks()) {
      const needsReference = check.needs.includes('reference');
      expect(check.needs.filter((n) => n !== 'reference')).toEqual(['base']);
      if (needsReference)
        expect(check.id).toMatch(/cache_window|scan_window|recent_window|status_values|four_decimals/);
      expect(check.needs.every((n) => remote.capabilities.has(n))).toBe(!needsReference);
    }
  });
});
