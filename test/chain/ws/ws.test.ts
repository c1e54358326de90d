// D-012 / D-016: JSON-RPC over WebSocket at /ws, authenticated at the upgrade with the institutional
// credentials and the chain:subscribe permission; eth_subscribe newHeads and logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { request, rpc } from '../../../conformance/http.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { call, openWs } from './support.ts';

let target: Target;
const admin = () => ({ authorization: `Bearer ${target.adminToken}` });

async function apiKey(permissions: string[]): Promise<string> {
  const created = await request(target, 'admin/v1/api-keys', { body: { name: 'ws', permissions }, headers: admin() });
  expect(created.status).toBe(201);
  return (created.json as { token: string }).token;
}

/** Opens /ws on this file's target. */
const open = (headers: Record<string, string>) => openWs(target, headers);

beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => target?.close?.());

describe('/ws', () => {
  it('refuses an upgrade without credentials (401) and without chain:subscribe (403)', async () => {
    expect(await open({})).toBe(401);
    expect(await open({ authorization: `Bearer ${await apiKey(['accounts:read'])}` })).toBe(403);
  });

  it('serves JSON-RPC methods and notifies newHeads for every sealed block', async () => {
    const socket = (await open({ authorization: `Bearer ${await apiKey(['chain:subscribe'])}` })) as WebSocket;
    try {
      expect((await call(socket, 1, 'eth_chainId')).result).toBe('0x10f447');
      const subscription = (await call(socket, 2, 'eth_subscribe', ['newHeads'])).result as string;
      expect(subscription).toMatch(/^0x[0-9a-f]{32}$/);
      const heads: { subscription: string; result: { number: string; miner: string } }[] = [];
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as { method?: string; params?: (typeof heads)[number] };
        if (frame.method === 'eth_subscription') heads.push(frame.params!);
      });
      await target.reference!.mineBlock();
      await target.reference!.mineBlock();
      await expect.poll(() => heads.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
      const latest = (await rpc(target, 'eth_blockNumber')).json as { result: string };
      expect(heads.map((h) => h.subscription)).toEqual([subscription, subscription]);
      expect(heads.at(-1)!.result.number).toBe(latest.result);
      expect(heads.at(-1)!.result).not.toHaveProperty('transactions');
      expect((await call(socket, 3, 'eth_unsubscribe', [subscription])).result).toBe(true);
      expect((await call(socket, 4, 'eth_subscribe', ['pendingTransactions'])).error?.code).toBe(-32602);
    } finally {
      socket.close();
    }
  });
});
