// A transaction the embedded Anvil holds as queued although it is next in line (src/node/stuck-transactions.ts)
// is sent again and mined, with the same hash. The stuck state is made on a real Anvil the way the race
// leaves it: the next transactions wait in the pool for a predecessor, and the sender's count on chain
// moves past that predecessor without the pool hearing of it (anvil_setNonce).
import type { Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID, startAnvil } from '../../src/node/anvil.ts';
import { readmitStuckTransactions } from '../../src/node/stuck-transactions.ts';
import { Upstream } from '../../src/node/upstream.ts';
import { fundedSender } from './funded-sender.ts';

const anvil = await startAnvil();
const upstream = new Upstream(anvil.url);
afterAll(() => anvil.stop());

// A fresh key credited on the node (D-151: no published development key is funded).
const sender = await fundedSender(upstream);
const sign = (nonce: number) =>
  sender.signTransaction({
    type: 'legacy',
    chainId: CHAIN_ID,
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21_000n,
    gasPrice: 0n,
  });
const pool = () =>
  upstream
    .call<{ pending: Hex; queued: Hex }>('txpool_status')
    .then((s) => ({ ready: Number(s.pending), queued: Number(s.queued) }));

describe('transactions the node holds back', () => {
  it('leaves a rightly queued transaction alone', async () => {
    const start = Number(BigInt(await upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
    await upstream.call('eth_sendRawTransaction', [await sign(start + 5)]); // a gap below it: rightly queued
    expect(await pool()).toEqual({ ready: 0, queued: 1 });
    expect(await readmitStuckTransactions(upstream)).toBe(0);
    expect(await pool()).toEqual({ ready: 0, queued: 1 });
    await upstream.call('anvil_removePoolTransactions', [sender.address]);
  });

  it('sends the stuck ones again in nonce order, and they are mined with their hashes', async () => {
    const start = Number(BigInt(await upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
    const hashes: Hex[] = [];
    for (const nonce of [start + 1, start + 2, start + 3])
      hashes.push(await upstream.call<Hex>('eth_sendRawTransaction', [await sign(nonce)]));
    expect(await pool()).toEqual({ ready: 0, queued: 3 });
    // The predecessor is mined as far as the chain knows; the pool still waits for it.
    await upstream.call('anvil_setNonce', [sender.address, `0x${(start + 1).toString(16)}`]);
    expect(await pool()).toEqual({ ready: 0, queued: 3 });
    await upstream.call('evm_mine');
    expect(Number(BigInt(await upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])))).toBe(
      start + 1,
    );

    expect(await readmitStuckTransactions(upstream)).toBe(3);
    expect(await pool()).toEqual({ ready: 3, queued: 0 });
    await upstream.call('evm_mine');
    const receipts = await upstream.batchResults<{ status: Hex; transactionHash: Hex } | null>(
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
    );
    expect(receipts.map((r) => r?.status)).toEqual(['0x1', '0x1', '0x1']);
    expect(receipts.map((r) => r?.transactionHash)).toEqual(hashes);
    expect(await readmitStuckTransactions(upstream)).toBe(0);
  });
});
