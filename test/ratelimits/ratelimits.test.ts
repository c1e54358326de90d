// D-024 and D-058: per-IP limits of /rpc (batch entries counted, a simulated call weighed as 20, D-201), /api and
// /admin/v1, answered 429 in each surface's error shape with Retry-After. The institutional 10/s limit is covered by the institutional.* checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_LIMIT, request } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget({
    env: { SVC_RATE_LIMIT_RPC: '100', SVC_RATE_LIMIT_EXPLORER: '50', SVC_RATE_LIMIT_ADMIN: '10' },
  });
});
afterAll(async () => target?.close?.());

describe('rate limits', () => {
  it('/rpc counts a batch as one request per entry and answers -32005 inside HTTP 429', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }));
    const first = await request(target, 'rpc', { body: batch });
    expect(first.status).toBe(200);
    const second = await request(target, 'rpc', { body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] } });
    expect(second.status).toBe(429);
    expect(second.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit exceeded' } });
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('/rpc counts eth_call and eth_estimateGas 20 requests each (D-201)', async () => {
    // A fresh window on the stack's clock, so the requests of the test before do not count.
    target.reference!.advanceClock(1_000);
    const identity = { to: '0x0000000000000000000000000000000000000004', data: '0x12' };
    // 4 simulated calls and 20 others: 24 entries, 100 units.
    const batch = [
      ...Array.from({ length: 2 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_call',
        params: [identity, 'latest'],
      })),
      ...Array.from({ length: 2 }, (_, i) => ({
        jsonrpc: '2.0',
        id: 2 + i,
        method: 'eth_estimateGas',
        params: [identity],
      })),
      ...Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: 4 + i, method: 'eth_chainId', params: [] })),
    ];
    const first = await request(target, 'rpc', { body: batch, ...PROBE_LIMIT });
    expect(first.status).toBe(200);
    expect((first.json as { error?: unknown }[]).filter((a) => a.error)).toEqual([]);
    const second = await request(target, 'rpc', {
      body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      ...PROBE_LIMIT,
    });
    expect(second.status).toBe(429);
    expect(second.json).toMatchObject({ error: { code: -32005, data: expect.stringContaining('count 20 each') } });
  });

  /** Sends requests in waves of 10 until one is refused; returns how many succeeded before, and the refusal. */
  async function untilRefused(path: string) {
    let succeeded = 0;
    for (let wave = 0; wave < 50; wave++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => request(target, path)));
      const refused = answers.find((a) => a.status === 429);
      succeeded += answers.filter((a) => a.status === 200).length;
      if (refused) return { succeeded, refused };
    }
    throw new Error(`${path} never answered 429`);
  }

  it('/api answers 429 with {error, code} and Retry-After once 50 requests per second per IP are used', async () => {
    const { succeeded, refused } = await untilRefused('api/governance');
    expect(succeeded).toBeGreaterThanOrEqual(50);
    expect(refused.json).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('/admin/v1 answers 429 once 10 requests per second per IP are used (D-058)', async () => {
    const { succeeded, refused } = await untilRefused('admin/v1/health');
    expect(succeeded).toBeGreaterThanOrEqual(10);
    expect(refused.json).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
