// Three `svckit serve` processes on one PostgreSQL and one chain node (harness.ts, D-183, D-184), through
// real HTTPS: transfers spread over the instances survive one of them being SIGKILLed (none lost, none
// duplicated, no nonce gap on chain, every acknowledged transfer settles), and the block leader's death is
// followed by blocks again within the lease bound.
//
// SVCKIT_CLUSTER_TRANSFERS sets how many transfers are sent (default 3,000).
import type { Hex } from 'viem';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, inst, newAccount, weiOf, type AccountView } from '../../conformance/checks/institutional/support.ts';
import { FOLLOW_POLL_MS } from '../../src/node/block-producer.ts';
import { chainNonce, startCluster, type Cluster, type Instance } from './harness.ts';
import { startNodeProxy, type NodeProxy } from './node-proxy.ts';

const TRANSFERS = Number(process.env.SVCKIT_CLUSTER_TRANSFERS ?? 3000);
const SENDERS = 16;
/** Requests in flight at once, over all instances. */
const IN_FLIGHT = 48;
const LEASE_MS = 3000;
const BLOCK_TIME_S = 1;

let cluster: Cluster;
let db: pg.Client;
/** Instance 2 reaches the chain node through this proxy, which can refuse its broadcasts. */
let proxy: NodeProxy;

beforeAll(async () => {
  proxy = await startNodeProxy();
  cluster = await startCluster({
    envOf: (index, chainUrl): Record<string, string> => {
      if (index !== 2) return {};
      proxy.target = chainUrl;
      return { CHAIN_RPC_URL: proxy.url };
    },
    instances: 3,
    env: {
      SVC_RATE_LIMIT: '0',
      SVC_RATE_LIMIT_ADMIN: '0',
      SVC_RATE_LIMIT_RPC: '0',
      SVC_LEADER_LEASE_MS: String(LEASE_MS),
      SVC_BLOCK_TIME: String(BLOCK_TIME_S),
    },
  });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await cluster?.stop();
  await proxy?.close();
});

type Row = {
  tx_ref: string;
  kind: string;
  account_id: string;
  nonce: string;
  tx_hash: Hex;
  status: string;
  amount_wei: string;
  fail_reason: string | null;
};

/**
 * Waits for the next sealed block after a credit: the engine reads balances at the newest sealed block it knows
 * (D-026), which a follower learns at its next poll.
 */
async function nextBlock(): Promise<void> {
  const head = BigInt(await cluster.chain.call<Hex>('eth_blockNumber'));
  await until('the next block', async () => BigInt(await cluster.chain.call<Hex>('eth_blockNumber')) > head, 30_000);
  // The followers learn of it at their next poll (FOLLOW_POLL_MS, D-183).
  await new Promise((resolve) => setTimeout(resolve, 2 * FOLLOW_POLL_MS));
}

/** Polls until `done` holds, every 200 ms, for at most `ms`. */
async function until(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('three svckit serve instances on one database and one chain', () => {
  it(`${TRANSFERS} transfers from ${SENDERS} accounts over the instances, one SIGKILLed midway: none lost, none duplicated, no nonce gap, all acknowledged settle`, async () => {
    const admin = cluster.instances[0]!.target;
    // Funded through the admin API of all three instances at once (D-191): the one funding account's nonces
    // are taken in turn across instances, none twice and none skipped.
    const senders: AccountView[] = await Promise.all(
      Array.from({ length: SENDERS }, (_, i) => newAccount(cluster.instances[i % 3]!.target, { fund: '10000' })),
    );
    const fundings = (
      await db.query<{ from_address: Hex; nonce: string; status: string }>(
        "select from_address, nonce, status from transfers where kind = 'funding' and lower(to_address) = any($1)",
        [senders.map((s) => s.address.toLowerCase())],
      )
    ).rows;
    expect(fundings.map((f) => f.status)).toEqual(senders.map(() => 'confirmed'));
    expect(fundings.map((f) => Number(f.nonce)).sort((a, b) => a - b)).toEqual(senders.map((_, i) => i));
    expect(await chainNonce(cluster.chain, fundings[0]!.from_address)).toBe(SENDERS);
    await nextBlock();
    const recipient = await newAccount(admin);
    const key = {
      bearer: await apiKey(
        admin,
        ['transfers:write', 'transfers:read'],
        senders.map((s) => s.id),
      ),
    };
    const victim = cluster.instances[2]!;
    const acknowledged = new Map<string, { account: string; amount: string; instance: number }>();
    const refused: string[] = [];
    let lost = 0;
    let next = 0;
    let killedAt: number | undefined;
    const started = performance.now();

    const sendOne = async (n: number) => {
      const alive = cluster.instances.filter((i) => i.alive());
      const instance: Instance = alive[n % alive.length]!;
      const sender = senders[n % SENDERS]!;
      const amount = `0.${String((n % 99) + 1).padStart(2, '0')}`;
      try {
        const res = await inst(instance.target, 'POST', '/transfers', key, {
          body: { fromAccountId: sender.id, to: recipient.address, amount },
        });
        if (res.status !== 201) {
          refused.push(`${res.status} ${res.text.slice(0, 200)}`);
          return;
        }
        const { txRef, status } = res.json as { txRef: string; status: string };
        if (status === 'failed') refused.push(`failed ${txRef}`);
        else acknowledged.set(txRef, { account: sender.id, amount, instance: instance.index });
      } catch {
        // The connection went with the killed instance: never acknowledged, so never counted.
        lost++;
      }
      if (killedAt === undefined && acknowledged.size >= TRANSFERS / 2) {
        killedAt = performance.now();
        await victim.kill();
      }
    };
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < TRANSFERS) await sendOne(next++);
      }),
    );
    const sendSeconds = (performance.now() - started) / 1000;
    expect(killedAt).toBeDefined();
    expect(refused).toEqual([]);
    expect(acknowledged.size + lost).toBe(TRANSFERS);
    // Only requests in flight on the killed instance can be unanswered.
    expect(lost).toBeLessThanOrEqual(IN_FLIGHT);

    // Every record settles, including those the killed instance stored but never sent (D-078, D-184).
    const accountIds = senders.map((s) => s.id);
    await until(
      'every record settled',
      async () =>
        (
          await db.query<{ n: string }>(
            "select count(*) as n from transfers where account_id = any($1) and status = 'pending'",
            [accountIds],
          )
        ).rows[0]!.n === '0',
      180_000,
    );
    const settleSeconds = (performance.now() - started) / 1000;
    const rows = (
      await db.query<Row>(
        'select tx_ref, kind, account_id, nonce, tx_hash, status, amount_wei, fail_reason from transfers where account_id = any($1)',
        [accountIds],
      )
    ).rows;
    const byRef = new Map(rows.map((r) => [r.tx_ref, r]));
    // None lost: every acknowledged transfer is stored once, confirmed, with the amount asked for.
    for (const [txRef, sent] of acknowledged) {
      const row = byRef.get(txRef);
      expect(row, txRef).toBeDefined();
      expect(row!.status).toBe('confirmed');
      expect(row!.account_id).toBe(sent.account);
      expect(BigInt(row!.amount_wei)).toBe(weiOf(sent.amount));
    }
    expect(rows.filter((r) => r.status === 'failed')).toEqual([]);

    // No nonce gap, nothing twice: each account's confirmed records hold nonces 0..n-1, the chain counts n,
    // each record's transaction is mined from the account at the record's nonce, and the balance fell by
    // exactly the confirmed amounts.
    for (const sender of senders) {
      const own = rows.filter((r) => r.account_id === sender.id && r.status === 'confirmed');
      const nonces = own.map((r) => Number(r.nonce)).sort((a, b) => a - b);
      expect(nonces).toEqual(nonces.map((_, i) => i));
      expect(await chainNonce(cluster.chain, sender.address)).toBe(own.length);
      const mined = await cluster.chain.batchResults<{ from: Hex; nonce: Hex; blockNumber: Hex | null }>(
        own.map((r) => ({ method: 'eth_getTransactionByHash', params: [r.tx_hash] })),
      );
      for (const [i, tx] of mined.entries()) {
        expect(tx.blockNumber).not.toBeNull();
        expect(tx.from.toLowerCase()).toBe(sender.address.toLowerCase());
        expect(Number(BigInt(tx.nonce))).toBe(Number(own[i]!.nonce));
      }
      const spent = own.reduce((sum, r) => sum + BigInt(r.amount_wei), 0n);
      const balance = BigInt(await cluster.chain.call<Hex>('eth_getBalance', [sender.address, 'latest']));
      expect(balance).toBe(weiOf('10000') - spent);
    }
    // Figures for the report (stderr, so they show in the test output).
    const perInstance = [0, 1, 2].map((i) => [...acknowledged.values()].filter((a) => a.instance === i).length);
    console.warn(
      `cluster transfers: ${acknowledged.size} acknowledged (${lost} lost with the killed instance, ${rows.length - acknowledged.size} records not acknowledged) ` +
        `per instance ${perInstance.join('/')}; sent in ${sendSeconds.toFixed(1)} s = ${(acknowledged.size / sendSeconds).toFixed(1)}/s; ` +
        `all settled after ${settleSeconds.toFixed(1)} s; fillers ${rows.filter((r) => r.kind === 'nonce-filler').length}`,
    );
    await victim.restart();
  });

  it('the block leader is SIGKILLed: another instance takes the lease and blocks resume within the bound', async () => {
    const leader = await cluster.leader();
    expect(leader).toBeDefined();
    // One producer: over 6 s the chain grows by about one block a second, not one per instance.
    const from = Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber')));
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const grown = Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber'))) - from;
    expect(grown).toBeGreaterThanOrEqual(4);
    expect(grown).toBeLessThanOrEqual(7);

    const killedAt = performance.now();
    await leader!.kill();
    // Read once the process is gone: a block the leader sealed while the signal was on its way is its own, not
    // the successor's.
    const headAtKill = Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber')));
    let resumedAt: number | undefined;
    while (performance.now() - killedAt < 30_000) {
      if (Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber'))) > headAtKill) {
        resumedAt = performance.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(resumedAt).toBeDefined();
    const takeoverMs = resumedAt! - killedAt;
    // D-183: the lease expires at most LEASE_MS after the last renewal, a follower tries every LEASE_MS / 3, and
    // the new leader seals on its next period; one more second for the load of the machine.
    const bound = LEASE_MS + LEASE_MS / 3 + BLOCK_TIME_S * 1000 + 1000;
    console.warn(
      `cluster takeover: blocks resumed ${takeoverMs.toFixed(0)} ms after the leader was killed (bound ${bound} ms)`,
    );
    expect(takeoverMs).toBeLessThanOrEqual(bound);
    // The successor names its holder id on stderr when it takes the lease, which may reach this process just
    // after its first block.
    let successor: Instance | undefined;
    await until(
      'the successor known',
      async () => {
        successor = await cluster.leader();
        return successor !== undefined;
      },
      2000,
    );
    expect(successor!.index).not.toBe(leader!.index);

    // The old leader comes back as a follower: still one producer.
    await leader!.restart();
    const again = Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber')));
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const grownAfter = Number(BigInt(await cluster.chain.call<Hex>('eth_blockNumber'))) - again;
    expect(grownAfter).toBeLessThanOrEqual(7);
    expect((await cluster.leader())!.index).toBe(successor!.index);
  });

  it('a broadcast refused on one instance after another allocated the next nonce leaves no gap (D-184 filler)', async () => {
    const admin = cluster.instances[0]!.target;
    const sender = await newAccount(admin, { fund: '1000' });
    await nextBlock();
    const recipient = await newAccount(admin);
    const key = { bearer: await apiKey(admin, ['transfers:write', 'transfers:read'], [sender.id]) };
    const proxied = cluster.instances[2]!;
    const direct = [cluster.instances[0]!, cluster.instances[1]!];
    expect(proxied.alive()).toBe(true);
    proxy.refuseSends = true;
    const outcomes: { instance: number; status: string; txRef: string }[] = [];
    // One account, from all three instances at once: the proxied instance's broadcasts are refused after
    // 300 ms, by which time the others have allocated (and sent) the account's next nonces.
    const send = async (instance: Instance, n: number) => {
      const res = await inst(instance.target, 'POST', '/transfers', key, {
        body: { fromAccountId: sender.id, to: recipient.address, amount: `0.${String((n % 99) + 1).padStart(2, '0')}` },
      });
      expect(res.status, res.text.slice(0, 300)).toBe(201);
      const { txRef, status } = res.json as { txRef: string; status: string };
      outcomes.push({ instance: instance.index, status, txRef });
    };
    await Promise.all([
      (async () => {
        for (let n = 0; n < 6; n++) await send(proxied, n);
      })(),
      ...direct.map(async (instance, d) => {
        for (let n = 0; n < 20; n++) await send(instance, 100 + d * 20 + n);
      }),
    ]);
    proxy.refuseSends = false;
    const failed = outcomes.filter((o) => o.status === 'failed');
    expect(failed.map((o) => o.instance)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(outcomes.filter((o) => o.status === 'pending')).toHaveLength(40);

    await until(
      'every record of the account settled',
      async () =>
        (
          await db.query<{ n: string }>(
            "select count(*) as n from transfers where account_id = $1 and status = 'pending'",
            [sender.id],
          )
        ).rows[0]!.n === '0',
      60_000,
    );
    const rows = (
      await db.query<Row>(
        'select tx_ref, kind, account_id, nonce, tx_hash, status, amount_wei, fail_reason from transfers where account_id = $1',
        [sender.id],
      )
    ).rows;
    const confirmed = rows.filter((r) => r.status === 'confirmed');
    const nonces = confirmed.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    expect(nonces).toEqual(nonces.map((_, i) => i));
    expect(await chainNonce(cluster.chain, sender.address)).toBe(confirmed.length);
    // Every acknowledged pending transfer confirmed; at least one refused nonce was taken by a filler (the
    // others went back to the account because nothing had been allocated after them yet).
    for (const o of outcomes.filter((x) => x.status === 'pending'))
      expect(rows.find((r) => r.tx_ref === o.txRef)?.status).toBe('confirmed');
    const fillers = confirmed.filter((r) => r.kind === 'nonce-filler');
    expect(fillers.length).toBeGreaterThan(0);
    expect(fillers.every((r) => BigInt(r.amount_wei) === 0n)).toBe(true);
    console.warn(`cluster nonce fillers: ${fillers.length} of ${failed.length} refused broadcasts were filled`);
  });
});
