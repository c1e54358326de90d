// The explorer over an external chain (CHAIN_RPC_URL): a standalone Anvil the stack did not start. The
// chain views work; the validator views answer 503 because the validators' names and post-quantum
// addresses are not known (never invented); a node that stops answering gives 503, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { startAnvil, type AnvilNode } from '../../src/node/anvil.ts';

let anvil: AnvilNode | undefined;
let target: Target;
beforeAll(async () => {
  anvil = await startAnvil();
  target = await referenceTarget({ env: { CHAIN_RPC_URL: anvil.url } });
});
afterAll(async () => {
  await target?.close?.();
  await anvil?.stop();
});

describe('explorer on an external chain', () => {
  it('serves the chain views from the external node', async () => {
    const stats = await request(target, 'api/stats');
    expect(stats.status).toBe(200);
    expect(stats.json).toEqual({ blockNumber: 0, avgBlockTime: '0.00' });
    const genesis = await request(target, 'api/block/0');
    expect(genesis.status).toBe(200);
    expect((genesis.json as { number: number }).number).toBe(0);
  });

  it('answers 503 {error, code} for /validators and /governance instead of inventing validator metadata', async () => {
    for (const path of ['validators', 'governance']) {
      const res = await request(target, `api/${path}`);
      expect(res.status, path).toBe(503);
      expect(res.json).toMatchObject({ code: 'VALIDATOR_METADATA_UNAVAILABLE' });
      expect((res.json as { error: string }).error).toMatch(/name, pqcAddress.*external/);
    }
  });

  it('answers 503 {error, code} when the node stops answering, naming no internal address', async () => {
    await anvil!.stop();
    anvil = undefined;
    for (const path of [
      'stats',
      'blocks',
      'txns',
      'block/1',
      `tx/0x${'ab'.repeat(32)}`,
      `address/0x${'ab'.repeat(20)}`,
    ]) {
      const res = await request(target, `api/${path}`);
      expect(res.status, path).toBe(503);
      expect(res.json).toEqual({ error: 'the chain node does not answer; try again later', code: 'CHAIN_UNAVAILABLE' });
    }
  });
});
