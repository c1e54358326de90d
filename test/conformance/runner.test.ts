import { describe, expect, it } from 'vitest';
import { Catalogue, type Check, type CheckVerdict } from '../../conformance/catalogue.ts';
import type { Clock } from '../../conformance/clock.ts';
import { matchesPrefix, runChecks, summarise } from '../../conformance/runner.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { specsOnlyTarget } from '../../conformance/targets/specs-only.ts';

const QUOTE = { quote: 'missing or invalid credentials give 401' };

function check(id: string, run: Check['run'], needs: Check['needs'] = ['specs']): Check {
  return { id, title: `title of ${id}`, surface: 'A', source: QUOTE, severity: 'MUST', needs, run };
}

/** A clock that advances 5 ms on every read. */
function steppingClock(): Clock {
  let t = 1_000;
  return { now: () => (t += 5) };
}

describe('runChecks', () => {
  it('skips a check whose needs the target lacks, naming the capability, without running it', async () => {
    let ran = false;
    const cat = new Catalogue().register(
      check('institutional.x.needs_wallet', async () => {
        ran = true;
        return { status: 'passed' };
      }, ['specs', 'wallet']),
    );
    const [result] = await runChecks(cat, specsOnlyTarget());
    expect(ran).toBe(false);
    expect(result?.status).toBe('skipped');
    expect(result?.reason).toContain("'wallet'");
    expect(result?.reason).toContain('specs-only');
    expect(result?.reason).not.toContain("'specs'");
  });

  it('runs the same check when the target offers the capability', async () => {
    const cat = new Catalogue().register(
      check('institutional.x.needs_wallet', async () => ({ status: 'passed' }), ['wallet']),
    );
    const [result] = await runChecks(cat, remoteTarget({ wallet: 'https://wallet.example' }));
    expect(result?.status).toBe('passed');
  });

  it('marks a throwing check failed with the error message', async () => {
    const cat = new Catalogue().register(
      check('institutional.x.throws', async () => {
        throw new TypeError('cannot read "balance" of undefined');
      }),
    );
    const [result] = await runChecks(cat, specsOnlyTarget());
    expect(result?.status).toBe('failed');
    expect(result?.reason).toBe('TypeError: cannot read "balance" of undefined');
  });

  it('fails a check that reports failed or skipped without a reason, or an unknown status', async () => {
    const cat = new Catalogue()
      .register(check('institutional.x.no_reason', async () => ({ status: 'skipped' }) as unknown as CheckVerdict))
      .register(check('institutional.x.odd_status', async () => ({ status: 'ok' }) as unknown as CheckVerdict));
    const results = await runChecks(cat, specsOnlyTarget());
    expect(results.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(results[0]?.reason).toContain('without a reason');
    expect(results[1]?.reason).toContain('"ok"');
  });

  it('keeps the catalogue entry over anything the verdict says, and times the run with the clock', async () => {
    const cat = new Catalogue().register(
      check(
        'institutional.x.sneaky',
        async () => ({ status: 'passed', id: 'other.id', durationMs: 99 }) as CheckVerdict,
      ),
    );
    const [result] = await runChecks(cat, specsOnlyTarget(), { clock: steppingClock() });
    expect(result).toMatchObject({ id: 'institutional.x.sneaky', status: 'passed', durationMs: 5, severity: 'MUST' });
  });

  it('runs only the checks selected by dotted id prefixes, and refuses a prefix that selects nothing', async () => {
    const cat = new Catalogue();
    for (const id of ['institutional.auth.a', 'institutional.auth.b', 'institutional.authz.c', 'transport.tls.d']) {
      cat.register(check(id, async () => ({ status: 'passed' })));
    }
    const picked = await runChecks(cat, specsOnlyTarget(), { only: ['institutional.auth', 'transport.tls.d'] });
    expect(picked.map((r) => r.id)).toEqual(['institutional.auth.a', 'institutional.auth.b', 'transport.tls.d']);
    await expect(runChecks(cat, specsOnlyTarget(), { only: ['institutional.au'] })).rejects.toThrow(/matches no check/);
    expect(matchesPrefix('institutional.auth.a', 'institutional.auth.')).toBe(true);
  });

  it('counts each status separately: a skip is never a pass', async () => {
    const cat = new Catalogue()
      .register(check('institutional.pass', async () => ({ status: 'passed' })))
      .register(check('institutional.fail', async () => ({ status: 'failed', reason: 'got 200, expected 401' })))
      .register(check('institutional.skip', async () => ({ status: 'skipped', reason: 'no second account' })))
      .register(check('institutional.unmet', async () => ({ status: 'passed' }), ['admin']));
    expect(summarise(await runChecks(cat, specsOnlyTarget()))).toEqual({ passed: 1, failed: 1, skipped: 2 });
  });
});
