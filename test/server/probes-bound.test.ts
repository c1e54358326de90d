// D-262: a readiness check that never settles counts as failed at its bound; the 503 names failing parts only.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { failingParts, installProbes, sharedReadiness } from '../../src/server/http/probes.ts';

describe('readiness checks (D-262)', () => {
  it('a check that never settles fails at the bound; a rejecting one at once; the others pass', async () => {
    const started = Date.now();
    const failing = await failingParts(
      [
        { name: 'database', check: async () => 1 },
        { name: 'chain', check: () => new Promise(() => undefined) },
        { name: 'keys', check: () => Promise.reject(new Error('secret-material-xyz')) },
      ],
      50,
    );
    expect(failing).toEqual(['chain', 'keys']);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('/readyz answers 503 {error, code} naming the part, never the cause; /livez is 200 regardless', async () => {
    const app = Fastify();
    installProbes(app, [
      { name: 'database', check: async () => 1 },
      { name: 'redis', check: () => Promise.reject(new Error('redis://svc:pw-secret@10.0.0.1')) },
    ]);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ error: 'not ready: redis unavailable', code: 'NOT_READY' });
    expect(ready.body).not.toContain('pw-secret');
    const live = await app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    await app.close();
  });

  it('probes share one round of checks: 200 at once run each check once, a later probe runs them again', async () => {
    let rounds = 0;
    let clock = 0;
    const readiness = sharedReadiness(
      [
        {
          name: 'database',
          check: async () => {
            rounds += 1;
          },
        },
      ],
      500,
      () => clock,
    );
    const answers = await Promise.all(Array.from({ length: 200 }, () => readiness()));
    expect(answers.every((a) => a.length === 0)).toBe(true);
    expect(rounds).toBe(1);
    clock = 499;
    await readiness();
    expect(rounds).toBe(1);
    clock = 500;
    await readiness();
    expect(rounds).toBe(2);
  });
});
