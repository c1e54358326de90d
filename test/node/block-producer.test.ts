// The block producer keeps the process alive when the node goes away (it used to emit an 'error' event
// nobody listened to, which Node turns into a crash), says so once, and seals again when the node is back.
// The node is a real Anvil behind a TCP relay that the test takes down and brings back up.
import net from 'node:net';
import type { Hex } from 'viem';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startAnvil } from '../../src/node/anvil.ts';
import { BlockProducer, type SealedBlock } from '../../src/node/block-producer.ts';
import type { QbftConsensus } from '../../src/node/qbft/consensus.ts';
import { Upstream } from '../../src/node/upstream.ts';

const anvil = await startAnvil();
afterAll(() => anvil.stop());
afterEach(() => vi.restoreAllMocks());

/** The producer's view of QBFT, reduced to a fixed proposer (the rotation is tested with the consensus). */
const proposer: Hex = '0x00000000000000000000000000000000000000aa';
const consensus = { proposerOf: () => proposer, onBlockSealed: async () => undefined } as unknown as QbftConsensus;

/** A TCP relay to Anvil on a fixed port, which can be taken down (connections cut, port closed) and up again. */
async function relay() {
  const node = new URL(anvil.url);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(node.port), node.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    down: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}

/** The block period of the first test, in seconds (the producer takes fractions; the setting does not need to). */
const PERIOD_S = 0.05;

const nextSeal = (producer: BlockProducer) => new Promise<SealedBlock>((resolve) => producer.once('sealed', resolve));
const warnings = (spy: { mock: { calls: unknown[][] } }): string[] => spy.mock.calls.map((c) => String(c[0]));

describe('the block producer', () => {
  it('survives the node going away, says so once, and seals again when it is back', async () => {
    const link = await relay();
    const upstream = new Upstream(link.url);
    // A 50 ms block period: the producer's timer runs as in production, only faster.
    const producer = new BlockProducer(upstream, consensus, PERIOD_S);
    const calls = vi.spyOn(upstream, 'call');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    producer.start();
    try {
      const before = await nextSeal(producer);
      expect(before.proposer).toBe(proposer);

      await link.down();
      // Three periods with no node: every seal begins with eth_blockNumber, which the relay now refuses.
      const refusedSeals = () =>
        calls.mock.calls.filter(
          ([method], i) => method === 'eth_blockNumber' && calls.mock.settledResults[i]?.type === 'rejected',
        ).length;
      await expect
        .poll(refusedSeals, { timeout: 10_000, interval: 10, message: 'three seals failed with the node away' })
        .toBeGreaterThanOrEqual(3);
      const failures = warnings(warn).filter((w) => w.includes('sealing a block failed'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain('unreachable');

      await link.up();
      const after = await nextSeal(producer);
      expect(after.number).toBeGreaterThan(before.number);
      await vi.waitFor(() =>
        expect(warnings(warn).some((w) => w.includes(`sealing works again (block ${after.number})`))).toBe(true),
      );
    } finally {
      await producer.stop();
    }
  });

  it('in instant mode, a seal that fails leaves no unhandled failure behind', async () => {
    const link = await relay();
    const producer = new BlockProducer(new Upstream(link.url), consensus, 0);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await link.down();
    producer.onTransaction();
    await vi.waitFor(() => expect(warnings(warn).some((w) => w.includes('sealing a block failed'))).toBe(true));
    await link.up();
    const sealed = nextSeal(producer);
    producer.onTransaction();
    expect((await sealed).proposer).toBe(proposer);
    await producer.stop();
  });
});
