// Run scopes (D-234) with the hand-written checks' client against real loopback servers that rate-limit like the
// reference: two runs in one process share no gate and no count; a request that probes the limit (PROBE_LIMIT)
// sees the 429 as it came; the run's exchange listener sees every attempt, a waited-out rate-limit answer marked so.
import { afterEach, describe, expect, it } from 'vitest';
import { PROBE_LIMIT, request } from '../../conformance/http.ts';
import { Pacer } from '../../conformance/pacing.ts';
import { type Activity, withActivity } from '../../conformance/progress.ts';
import { type Exchange, withRunScope } from '../../conformance/run-scope.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { limiting, startServer, type TestServer } from './helpers/limiter.ts';

const servers: TestServer[] = [];
const serve = async (...args: Parameters<typeof startServer>) => {
  const server = await startServer(...args);
  servers.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const targetOf = (server: TestServer): Target => ({
  kind: 'remote',
  base: server.url,
  capabilities: new Set(['base']),
});
const activity = (name: string): Activity => ({
  name,
  waitingFor: undefined,
  retries: [],
  signal: new AbortController().signal,
});
/** Answers the first request 429 with a Retry-After of `seconds`, every later one 200. */
const limitsFirst = (seconds: number) => {
  let n = 0;
  return () =>
    ++n === 1
      ? { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': String(seconds) } }
      : { status: 200, body: { ok: true } };
};

describe('two runs in one process', () => {
  it('keep their own gates and counts: one origin paused in one run does not hold the other run back', async () => {
    const slow = await serve(limitsFirst(2));
    const fast = await serve(() => ({ status: 200, body: { ok: true } }));
    const first = new Pacer();
    const second = new Pacer();
    const started = Date.now();
    const firstRun = withRunScope({ pacer: first }, () => request(targetOf(slow), 'api/a'));
    // The second run starts once the first one's origin is paused for 2 s, and sends to both origins.
    await expect.poll(() => first.stats()[slow.url.origin]?.rateLimited, { interval: 10 }).toBe(1);
    const secondRun = withRunScope({ pacer: second }, async () => {
      const answers = [await request(targetOf(slow), 'api/b'), await request(targetOf(fast), 'api/c')];
      return { answers, at: Date.now() };
    });
    const [one, two] = await Promise.all([firstRun, secondRun]);
    expect(one.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1950);
    expect(two.answers.map((a) => a.status)).toEqual([200, 200]);
    expect(two.at - started).toBeLessThan(1000);
    expect(Object.keys(first.stats())).toEqual([slow.url.origin]);
    expect(first.stats()[slow.url.origin]).toMatchObject({ rateLimited: 1 });
    expect(first.stats()[slow.url.origin]?.waitedMs).toBeGreaterThanOrEqual(1900);
    expect(second.stats()[slow.url.origin]).toMatchObject({ rateLimited: 0, rate: undefined });
    expect(second.stats()[fast.url.origin]).toMatchObject({ rateLimited: 0, rate: undefined });
  });
});

describe('in a run', () => {
  it('returns a probe of the limit its 429 as it came, neither paced nor sent again', async () => {
    const server = await serve(limiting(2, 'rest'));
    const pacer = new Pacer();
    const seen: Exchange[] = [];
    const answers = await withRunScope({ pacer, onExchange: (e) => seen.push(e) }, () =>
      Promise.all(Array.from({ length: 4 }, () => request(targetOf(server), 'api/x', PROBE_LIMIT))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429, 429]);
    expect(server.arrivals).toHaveLength(4);
    expect(seen.map((e) => e.rateLimited)).toEqual([false, false, false, false]);
    // A probe goes past the gates: the pacer has nothing to report for the origin.
    expect(pacer.stats()).toEqual({});
  });

  it("tells the run's exchange listener each attempt of a check's request, the waited-out 429 marked so", async () => {
    const server = await serve(limitsFirst(1));
    const seen: Exchange[] = [];
    const check = activity('institutional.accounts.list');
    const res = await withRunScope({ pacer: new Pacer(), onExchange: (e) => seen.push(e) }, () =>
      withActivity(check, () => request(targetOf(server), 'api/accounts', { headers: { 'x-test': '1' } })),
    );
    expect(res.status).toBe(200);
    expect(seen.map((e) => [e.source, e.check, e.response?.status, e.rateLimited])).toEqual([
      ['hand-written', 'institutional.accounts.list', 429, true],
      ['hand-written', 'institutional.accounts.list', 200, false],
    ]);
    expect(seen[0]!.request).toEqual({
      method: 'GET',
      url: new URL('api/accounts', server.url).href,
      headers: { 'x-test': '1' },
    });
    expect(seen[1]!.startedAt - seen[0]!.startedAt).toBeGreaterThanOrEqual(950);
    expect(check.retries).toEqual(['GET /api/accounts: HTTP 429; retry 1 after 1000 ms']);
  });

  it('tells the exchange listener of an attempt that got no answer, with the error', async () => {
    const server = await serve(() => ({ status: 200, body: {} }));
    const target = targetOf(server);
    await server.close();
    const seen: Exchange[] = [];
    await expect(
      withRunScope({ pacer: new Pacer(), onExchange: (e) => seen.push(e) }, () => request(target, 'api/x')),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ source: 'hand-written', rateLimited: false });
    expect(seen[0]!.response).toBeUndefined();
    expect(seen[0]!.error).toMatch(/ECONNREFUSED/);
  });
});
