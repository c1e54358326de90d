// The confirmer checks every pending record, not only the oldest page of them (src/ledger/transfers/
// confirmer.ts): records that stay pending for good (a transaction the node dropped) must not keep a newer
// transfer from being confirmed. Real Anvil; PGlite under `npm test`, PostgreSQL under `npm run test:postgres`.
import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID, startAnvil } from '../../src/node/anvil.ts';
import { Upstream } from '../../src/node/upstream.ts';
import { fundedSender } from '../node/funded-sender.ts';
import { CONFIRM_PAGE, TransferConfirmer } from '../../src/ledger/transfers/confirmer.ts';
import { transfers } from '../../src/storage/schema.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('confirmer_pages');
const anvil = await startAnvil();
const upstream = new Upstream(anvil.url);
afterAll(() => anvil.stop());

// A fresh key credited on the node (D-151: no published development key is funded).
const sender = await fundedSender(upstream);
const dead = '0x000000000000000000000000000000000000dEaD';

/** A pending record as the engine stores it. */
const record = (n: number, txHash: string, createdAt: Date) => ({
  txRef: `TXN20261122-${String(n).padStart(8, '0')}`,
  kind: 'funding' as const,
  accountId: null,
  fromAddress: sender.address,
  toAddress: dead,
  amountWei: '1',
  nonce: n,
  txHash,
  signedTx: '0x01',
  status: 'pending' as const,
  createdAt,
});

describe('the transfer confirmer', () => {
  it('confirms a transfer behind more than a page of records that never get mined', async () => {
    const { db } = fresh.database;
    const old = new Date('2026-11-22T00:00:00Z');
    // Two pages and one more of records the node has never seen, three to a millisecond, so one millisecond
    // spans the end of the second page; the real record shares it too (after them by txRef), so paging that
    // steps over a page's last millisecond instead of its last record would miss it.
    const lost = Array.from({ length: 2 * CONFIRM_PAGE + 1 }, (_, i) =>
      record(i, `0x${(i + 1).toString(16).padStart(64, '0')}`, new Date(old.getTime() + Math.floor(i / 3))),
    );
    await db.insert(transfers).values(lost);

    const nonce = Number(BigInt(await upstream.call<Hex>('eth_getTransactionCount', [sender.address, 'latest'])));
    const signed = await sender.signTransaction({
      type: 'legacy',
      chainId: CHAIN_ID,
      nonce,
      to: dead,
      value: 1n,
      gas: 21_000n,
      gasPrice: 0n,
    });
    const txHash = await upstream.call<Hex>('eth_sendRawTransaction', [signed]);
    await upstream.call('evm_mine');
    const real = { ...record(lost.length, txHash, lost.at(-1)!.createdAt), signedTx: signed };
    await db.insert(transfers).values(real);

    await new TransferConfirmer(db, upstream).poke();

    const [after] = await db.select().from(transfers).where(eq(transfers.txRef, real.txRef));
    expect(after).toMatchObject({
      status: 'confirmed',
      blockNumber: Number(BigInt(await upstream.call<Hex>('eth_blockNumber'))),
    });
    const stillPending = await db
      .select({ txRef: transfers.txRef })
      .from(transfers)
      .where(eq(transfers.status, 'pending'));
    expect(stillPending).toHaveLength(lost.length);
  });
});
