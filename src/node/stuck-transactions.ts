/**
 * Re-admits transactions the embedded Anvil node holds as "queued" although they are next in line.
 *
 * Anvil (1.7.1 here) works out which earlier transaction a new one waits for from the sender's nonce on
 * chain, then adds it to its pool. When the block that mines the sender's previous transaction is
 * committed in between, the new transaction waits for a predecessor that is already mined: it stays
 * queued for ever, and every later transaction of the sender behind it (Anvil's pool, adapted from
 * Substrate's, only unlocks a waiting transaction when its predecessor is added or mined afterwards).
 * Seen once under `npm run bench -- institutional`, in about twenty runs of 3,000 transfers: a transfer
 * with nonce 56 queued while the account's count on chain was already 56, and 36 more behind it.
 *
 * A transaction whose nonce equals its sender's count on chain can never rightly be queued, so after each
 * block the producer looks (one `txpool_status` call, more only when something is queued), takes such a
 * sender's transactions out of the pool and sends the same signed bytes again in nonce order: same
 * hashes, nothing duplicated, nothing lost. Keeping admission and mining apart would avoid the race, but
 * it cut the benchmark's transfer rate to 164 and 169 per second (against 206 to 262 without it, single
 * runs on this machine); this costs one call per block.
 */
import type { Hex } from 'viem';
import type { Upstream } from './upstream.ts';

type PoolTx = { hash: Hex; nonce: Hex };
type PoolContent = { pending: Record<string, Record<string, PoolTx>>; queued: Record<string, Record<string, PoolTx>> };

/** Re-admits every sender whose next transaction is stuck; returns how many transactions were sent again. */
export async function readmitStuckTransactions(upstream: Upstream): Promise<number> {
  const status = await upstream.call<{ queued: Hex }>('txpool_status');
  if (BigInt(status.queued) === 0n) return 0;
  const content = await upstream.call<PoolContent>('txpool_content');
  const senders = Object.keys(content.queued);
  const counts = await upstream.batchResults<Hex>(
    senders.map((s) => ({ method: 'eth_getTransactionCount', params: [s, 'latest'] })),
  );
  let readmitted = 0;
  for (const [i, sender] of senders.entries()) {
    const onChain = BigInt(counts[i]!);
    if (!Object.values(content.queued[sender]!).some((tx) => BigInt(tx.nonce) === onChain)) continue;
    const held = [...Object.values(content.pending[sender] ?? {}), ...Object.values(content.queued[sender]!)].sort(
      (a, b) => Number(BigInt(a.nonce) - BigInt(b.nonce)),
    );
    const raws = await upstream.batchResults<Hex>(
      held.map((tx) => ({ method: 'eth_getRawTransactionByHash', params: [tx.hash] })),
    );
    await upstream.call('anvil_removePoolTransactions', [sender]);
    // In nonce order, one at a time: each one is next in line when it arrives.
    for (const raw of raws) {
      const answer = await upstream.send('eth_sendRawTransaction', [raw]);
      if (answer.error && !/already known/i.test(answer.error.message))
        throw new Error(`re-admitting ${sender}'s transactions failed: ${answer.error.message}`);
      readmitted++;
    }
  }
  return readmitted;
}
