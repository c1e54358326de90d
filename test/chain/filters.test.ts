// D-256: the filters' bounds and expiry on the injectable clock, in process and in a real Redis shared by two
// gateway instances (D-168). The chain is a stand-in whose head the test moves: what is under test is the
// bookkeeping; the gateway end to end is in served-methods.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { BlockHeader, ChainReader } from '../../src/server/chain/chain-reader.ts';
import type { JsonRpcFailure } from '../../src/server/chain/errors.ts';
import { MemoryFilterStore, RedisFilterStore } from '../../src/server/chain/filter-store.ts';
import { type FilterLimits, Filters, type FilterStore } from '../../src/server/chain/filters.ts';
import { openSharedState, type SharedState } from '../../src/storage/redis.ts';
import { redisMissing, startRedis, type TestRedis } from '../support/redis.ts';

const LIMITS: FilterLimits = { perClient: 3, total: 5, idleMs: 60_000, blocksPerPoll: 4 };
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** A chain whose head the test sets; block n holds one transaction, hash n + 1000. */
class StandInChain {
  head = 10;
  pool: string[] = [];
  readonly reader = {
    head: async () => this.head,
    blocks: async (from: number, to: number): Promise<BlockHeader[]> =>
      Array.from({ length: to - from + 1 }, (_, i) => ({
        number: `0x${(from + i).toString(16)}`,
        hash: hash(from + i),
        gasUsed: '0x0',
        gasLimit: '0x1',
        transactions: [hash(from + i + 1000)],
      })),
    pooled: async () => this.pool,
  } as unknown as ChainReader;
  getLogs = async (filter: { fromBlock?: string; toBlock?: string }) => ({
    jsonrpc: '2.0' as const,
    id: 1,
    result: [{ range: [filter.fromBlock, filter.toBlock] }],
  });
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: JsonRpcFailure) => error.kind,
  );

/** The same behaviour for each store. */
function behaves(name: string, makeStore: () => Promise<FilterStore>) {
  describe(`filters in ${name}`, () => {
    it('bounds filters per client IP and in total; expired ones free their place', async () => {
      const chain = new StandInChain();
      const clock = new ManualClock();
      const filters = new Filters(await makeStore(), chain, clock, LIMITS);
      for (let i = 0; i < 3; i++) await filters.call('eth_newBlockFilter', [], '203.0.113.1');
      expect(await refusal(filters.call('eth_newBlockFilter', [], '203.0.113.1'))).toBe('LimitExceeded');
      await filters.call('eth_newBlockFilter', [], '203.0.113.2');
      await filters.call('eth_newBlockFilter', [], '203.0.113.2');
      expect(await refusal(filters.call('eth_newBlockFilter', [], '203.0.113.3'))).toBe('LimitExceeded');
      clock.advance(LIMITS.idleMs);
      expect(await refusal(filters.call('eth_newBlockFilter', [], '203.0.113.1'))).toBeUndefined();
    });

    it('expires a filter not polled for the idle time; a poll keeps it alive', async () => {
      const chain = new StandInChain();
      const clock = new ManualClock();
      const filters = new Filters(await makeStore(), chain, clock, LIMITS);
      const id = (await filters.call('eth_newBlockFilter', [], '203.0.113.4')) as string;
      clock.advance(LIMITS.idleMs - 1);
      expect(await filters.call('eth_getFilterChanges', [id], '203.0.113.4')).toEqual([]);
      clock.advance(LIMITS.idleMs - 1);
      expect(await filters.call('eth_getFilterChanges', [id], '203.0.113.4')).toEqual([]);
      clock.advance(LIMITS.idleMs);
      expect(await refusal(filters.call('eth_getFilterChanges', [id], '203.0.113.4'))).toBe('FilterNotFound');
      expect(await filters.call('eth_uninstallFilter', [id], '203.0.113.4')).toBe(false);
    });

    it('reads at most blocksPerPoll blocks a poll, the rest on the next, and logs within the same range', async () => {
      const chain = new StandInChain();
      const filters = new Filters(await makeStore(), chain, new ManualClock(), LIMITS);
      const blocks = (await filters.call('eth_newBlockFilter', [], '203.0.113.5')) as string;
      const logs = (await filters.call('eth_newFilter', [{ toBlock: '0xd' }], '203.0.113.5')) as string;
      chain.head = 16;
      expect(await filters.call('eth_getFilterChanges', [blocks], 'x')).toEqual([11, 12, 13, 14].map(hash));
      expect(await filters.call('eth_getFilterChanges', [blocks], 'x')).toEqual([15, 16].map(hash));
      expect(await filters.call('eth_getFilterChanges', [logs], 'x')).toEqual([{ range: ['0xb', '0xd'] }]);
      expect(await filters.call('eth_getFilterChanges', [logs], 'x')).toEqual([]);
    });

    it('reports a transaction once, whether it was seen pooled or in a block', async () => {
      const chain = new StandInChain();
      const filters = new Filters(await makeStore(), chain, new ManualClock(), LIMITS);
      const id = (await filters.call('eth_newPendingTransactionFilter', [], '203.0.113.6')) as string;
      chain.pool = [hash(1011)];
      expect(await filters.call('eth_getFilterChanges', [id], 'x')).toEqual([hash(1011)]);
      chain.pool = [];
      chain.head = 11; // block 11 holds transaction 1011, already reported
      expect(await filters.call('eth_getFilterChanges', [id], 'x')).toEqual([]);
      chain.head = 12;
      expect(await filters.call('eth_getFilterChanges', [id], 'x')).toEqual([hash(1012)]);
    });

    it('gives two polls of one filter at once each block once', async () => {
      const chain = new StandInChain();
      const filters = new Filters(await makeStore(), chain, new ManualClock(), LIMITS);
      const id = (await filters.call('eth_newBlockFilter', [], '203.0.113.7')) as string;
      chain.head = 12;
      const [a, b] = (await Promise.all([
        filters.call('eth_getFilterChanges', [id], 'x'),
        filters.call('eth_getFilterChanges', [id], 'x'),
      ])) as string[][];
      expect([...a!, ...b!].sort()).toEqual([11, 12].map(hash));
    });
  });
}

behaves('process memory', async () => new MemoryFilterStore());

const missing = process.env.REDIS_URL ? undefined : redisMissing;
let server: TestRedis | undefined;
const opened: SharedState[] = [];
let redisUrl = process.env.REDIS_URL ?? '';

describe.skipIf(missing !== undefined)(`filters shared through Redis${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    if (!redisUrl) {
      server = await startRedis();
      redisUrl = server.url;
    }
  });
  afterAll(async () => {
    for (const shared of opened) await shared.close();
    await server?.stop();
  });
  const store = async () => {
    const shared = await openSharedState(redisUrl);
    opened.push(shared);
    // Each test its own key space: a fresh database would be cleaner, FLUSHDB is the same for a throw-away server.
    await shared.commands.flushdb();
    return new RedisFilterStore(shared.commands, LIMITS.idleMs);
  };
  behaves('Redis', store);

  it('answers a filter made on one instance on another, and counts both instances against one bound', async () => {
    const chain = new StandInChain();
    const clock = new ManualClock();
    const one = new Filters(await store(), chain, clock, LIMITS);
    const shared = await openSharedState(redisUrl);
    opened.push(shared);
    const two = new Filters(new RedisFilterStore(shared.commands, LIMITS.idleMs), chain, clock, LIMITS);
    const id = (await one.call('eth_newBlockFilter', [], '203.0.113.8')) as string;
    chain.head = 11;
    expect(await two.call('eth_getFilterChanges', [id], 'x')).toEqual([hash(11)]);
    expect(await one.call('eth_getFilterChanges', [id], 'x')).toEqual([]);
    await two.call('eth_newBlockFilter', [], '203.0.113.8');
    await one.call('eth_newBlockFilter', [], '203.0.113.8');
    expect(await refusal(two.call('eth_newBlockFilter', [], '203.0.113.8'))).toBe('LimitExceeded');
    expect(await two.call('eth_uninstallFilter', [id], 'x')).toBe(true);
    expect(await one.call('eth_uninstallFilter', [id], 'x')).toBe(false);
  });

  it('answers -32002 when Redis does not answer (D-168: fail closed)', async () => {
    const own = await startRedis();
    const shared = await openSharedState(own.url);
    const filters = new Filters(
      new RedisFilterStore(shared.commands, LIMITS.idleMs),
      new StandInChain(),
      new ManualClock(),
      LIMITS,
    );
    await own.stop();
    expect(await refusal(filters.call('eth_newBlockFilter', [], '203.0.113.9'))).toBe('ResourceUnavailable');
    await shared.close();
  });
});
