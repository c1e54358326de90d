// The engine's client through a run's pacer (D-180, D-234), against real loopback servers that rate-limit like
// the reference: at 16 requests in flight every rate-limit answer is waited out and sent again, the adaptive pace
// keeps most requests under the limit, the exchange listener sees each attempt, and a -32005 outside a 429 is an answer.
import { afterEach, describe, expect, it } from 'vitest';
import { engineClient, pooled, type WireRequest } from '../../../conformance/engine/core/client.ts';
import { Pacer } from '../../../conformance/pacing.ts';
import { type Exchange, withRunScope } from '../../../conformance/run-scope.ts';
import { limiting, okAnswer, startServer, type TestServer } from '../helpers/limiter.ts';

const servers: TestServer[] = [];
const serve = async (...args: Parameters<typeof startServer>) => {
  const server = await startServer(...args);
  servers.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const get = (server: TestServer, i: number): WireRequest => ({
  method: 'GET',
  url: new URL(`api/items/${i}`, server.url).href,
  headers: { accept: 'application/json' },
});
const rpcCall = (server: TestServer, i: number): WireRequest => ({
  method: 'POST',
  url: new URL('rpc', server.url).href,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }),
});
const count429 = (server: TestServer) => server.arrivals.filter((a) => a.status === 429).length;

describe('at 16 requests in flight', () => {
  it('answers every request 200 against a 10/s limit, the waits counted in the stats', async () => {
    const server = await serve(limiting(10, 'rest'));
    const pacer = new Pacer();
    const client = engineClient({ connections: 16, pacer });
    try {
      const answers = await pooled(
        Array.from({ length: 40 }, (_, i) => i),
        16,
        (i) => client.send(get(server, i)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
      const stats = pacer.stats()[server.url.origin];
      expect(stats?.rateLimited).toBe(count429(server));
      expect(stats?.rateLimited).toBeGreaterThan(0);
      // At least the first Retry-After (1 s) held the origin back.
      expect(stats?.waitedMs).toBeGreaterThanOrEqual(900);
      expect(stats?.rate).toBeDefined();
    } finally {
      client.close();
    }
  });

  it('settles at a pace the limit accepts after the first 429: JSON-RPC -32005 in a 429 on fewer than 25% of requests', async () => {
    const server = await serve(limiting(20, 'json-rpc'));
    const pacer = new Pacer();
    const client = engineClient({ connections: 16, pacer });
    try {
      const answers = await pooled(
        Array.from({ length: 100 }, (_, i) => i),
        16,
        (i) => client.send(rpcCall(server, i)),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const limited = count429(server);
      expect(limited).toBeGreaterThan(0);
      expect(limited, `${limited} of ${server.arrivals.length} requests answered 429`).toBeLessThan(0.25 * 100);
      expect(pacer.stats()[server.url.origin]?.rateLimited).toBe(limited);
    } finally {
      client.close();
    }
  });
});

describe('what the run observes', () => {
  it("tells the run's exchange listener each attempt, a rate-limit answer that is sent again marked so", async () => {
    let n = 0;
    const server = await serve(() =>
      ++n === 1
        ? { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '1' } }
        : { status: 200, body: { ok: true } },
    );
    const seen: Exchange[] = [];
    const answer = await withRunScope({ pacer: new Pacer(), onExchange: (e) => seen.push(e) }, async () => {
      const client = engineClient({ connections: 16 });
      try {
        return await client.send(get(server, 1), { check: 'status_code_conformance' });
      } finally {
        client.close();
      }
    });
    expect(answer.status).toBe(200);
    expect(seen.map((e) => [e.source, e.check, e.response?.status, e.rateLimited])).toEqual([
      ['generated', 'status_code_conformance', 429, true],
      ['generated', 'status_code_conformance', 200, false],
    ]);
    expect(seen[1]!.startedAt - seen[0]!.startedAt).toBeGreaterThanOrEqual(950);
    expect(seen[0]!.request).toEqual({
      method: 'GET',
      url: new URL('api/items/1', server.url).href,
      headers: { accept: 'application/json' },
    });
    expect(seen[0]!.response?.body).toBe('{"error":"slow down"}');
  });

  it('gives up after maxRetries and returns the last 429, not marked as sent again', async () => {
    const server = await serve(() => ({ status: 429, body: { error: 'no' }, headers: { 'retry-after': '0' } }));
    const seen: Exchange[] = [];
    const pacer = new Pacer({ maxRetries: 2, rate: 100 });
    const client = engineClient({ pacer });
    try {
      const answer = await withRunScope({ pacer, onExchange: (e) => seen.push(e) }, () => client.send(get(server, 1)));
      expect(answer.status).toBe(429);
    } finally {
      client.close();
    }
    expect(seen.map((e) => e.rateLimited)).toEqual([true, true, false]);
    expect(pacer.stats()[server.url.origin]?.rateLimited).toBe(2);
  });
});

describe('answers that are not limits', () => {
  it('returns a JSON-RPC -32005 in a 200 as the answer, sent once', async () => {
    const server = await serve(() => ({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'batch too large' } },
    }));
    const pacer = new Pacer();
    const client = engineClient({ pacer });
    try {
      const answer = await client.send(rpcCall(server, 1));
      expect(answer.status).toBe(200);
      expect((answer.json as { error: { code: number } }).error.code).toBe(-32005);
    } finally {
      client.close();
    }
    expect(server.arrivals).toHaveLength(1);
    expect(pacer.stats()[server.url.origin]).toMatchObject({ rateLimited: 0, rate: undefined });
  });

  it('outside a run, with the library pacer, returns a 429 as it came', async () => {
    const server = await serve(limiting(1, 'rest', okAnswer));
    const client = engineClient();
    try {
      const answers = await Promise.all([client.send(get(server, 1)), client.send(get(server, 2))]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 429]);
    } finally {
      client.close();
    }
    expect(server.arrivals).toHaveLength(2);
  });
});
