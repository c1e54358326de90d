// A stock viem public client (its `http` transport over real TLS) reads a storage slot through the gateway
// with the 32-byte zero-padded slot stock clients send (D-131), and gets what Anvil answers directly.
import { createPublicClient, http, pad, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startGateway, type Gateway } from './support.ts';

const CONTRACT = '0x00000000000000000000000000000000000c0de2';
const VALUE = pad('0x1234', { size: 32 });
let gw: Gateway;

beforeAll(async () => {
  gw = await startGateway();
  // Set on Anvil directly, not through the gateway.
  await call(gw.anvil, 'anvil_setCode', [CONTRACT, '0x00']);
  await call(gw.anvil, 'anvil_setStorageAt', [CONTRACT, '0x1', VALUE]);
});
afterAll(async () => {
  await gw?.close();
});

describe('a stock viem client reading storage through the gateway', () => {
  it('getStorageAt with a 32-byte zero-padded slot returns the value Anvil returns directly', async () => {
    const client = createPublicClient({ transport: http(gw.rpc) });
    const slot = `0x${'00'.repeat(31)}01` as Hex;
    const direct = await createPublicClient({ transport: http(gw.anvil) }).getStorageAt({ address: CONTRACT, slot });
    expect(direct).toBe(VALUE);
    expect(await client.getStorageAt({ address: CONTRACT, slot })).toBe(direct);
  });
});
