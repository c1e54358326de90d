// D-262: GET /livez and GET /readyz on every origin; readiness names the part that is down (here the chain node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/node/anvil.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

let node: AnvilNode;
let running: TestStack;

beforeAll(async () => {
  node = await startAnvil();
  running = await startTestStack({ env: { CHAIN_RPC_URL: node.url }, trustCa: true });
}, 60_000);
afterAll(async () => {
  await running?.close();
  await node?.stop().catch(() => undefined);
});

const origins = () => [running.ready.base, running.ready.wallet, running.ready.site];

describe('liveness and readiness probes (D-262)', () => {
  it('every origin is live and ready while every part is up', async () => {
    for (const origin of origins()) {
      const live = await fetch(`${origin}/livez`);
      expect(live.status, `${origin}/livez`).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${origin}/readyz`);
      expect(ready.status, `${origin}/readyz`).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok' });
    }
  });

  it('with the chain node stopped, every origin stays live and answers /readyz 503 naming the chain', async () => {
    await node.stop();
    for (const origin of origins()) {
      expect((await fetch(`${origin}/livez`)).status).toBe(200);
      // A probe may answer from a round of checks up to PROBE_SHARE_MS old (D-262): poll, bounded.
      let ready = await fetch(`${origin}/readyz`);
      for (let tries = 0; ready.status === 200 && tries < 20; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        ready = await fetch(`${origin}/readyz`);
      }
      expect(ready.status, `${origin}/readyz`).toBe(503);
      const body = (await ready.json()) as { error: string; code: string };
      expect(body.code).toBe('NOT_READY');
      expect(body.error).toBe('not ready: chain unavailable');
    }
  }, 30_000);
});
