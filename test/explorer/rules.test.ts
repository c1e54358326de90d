// The explorer's tricky rules, on the in-process reference stack (real Anvil, real TLS, the injectable
// clock): four-decimal truncation (D-033), avgBlockTime near genesis (D-041), the /txns cache (one
// upstream batch when cold, none while warm, refreshed after 20 s), and 400 against 404 for ids.
import { getAddress, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  blocksByNumber,
  headNumber,
  minedTransaction,
  randomHash,
  rpcResult,
} from '../../conformance/checks/explorer/support.ts';
import { request } from '../../conformance/http.ts';
import { withinRun } from '../../conformance/run-scope.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { Upstream } from '../../src/node/upstream.ts';
import { formatAvgBlockTime, formatBalance } from '../../src/server/explorer/format.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => {
  await target?.close?.();
});
afterEach(() => {
  vi.restoreAllMocks();
});

// No test here probes a rate limit: each runs as a run (withinRun), so a 429 (the institutional limit stays on)
// is waited out and sent again (D-180, D-234).
const get = (path: string) => request(target, `api/${path}`);
const UNIT = 10n ** 18n;

describe('avgBlockTime (D-041)', () => {
  it('is (t_latest - t_(latest-k)) / k with 2 decimals, the third truncated', () => {
    expect(formatAvgBlockTime(100, 100, 0)).toBe('0.00');
    expect(formatAvgBlockTime(1040, 1000, 20)).toBe('2.00');
    expect(formatAvgBlockTime(1041, 1000, 20)).toBe('2.05');
    expect(formatAvgBlockTime(1007, 1000, 3)).toBe('2.33');
    expect(formatAvgBlockTime(1002, 1000, 3)).toBe('0.66');
  });

  // Runs first in the file, while the stack's chain holds only its genesis block.
  it('averages over fewer blocks near genesis and over the last 20 later on', () =>
    withinRun(async () => {
      // Genesis only: "0.00" with one block.
      expect((await request(target, 'api/stats')).json).toEqual({ blockNumber: 0, avgBlockTime: '0.00' });
      // Block 1 must come at least a second after genesis (Anvil stamps blocks with the machine's seconds): the
      // stack's start usually took that long already; otherwise this waits until the second has turned.
      const [genesis] = await blocksByNumber(target, [0]);
      const secondAfterGenesis = (Number(BigInt(genesis!.timestamp)) + 1) * 1000;
      await expect
        .poll(() => Date.now() >= secondAfterGenesis, {
          timeout: 2_000,
          interval: 10,
          message: 'a second since genesis',
        })
        .toBe(true);
      for (let i = 0; i < 3; i++) await target.reference!.mineBlock();
      const [b3, b0] = await blocksByNumber(target, [3, 0]);
      const near = (await request(target, 'api/stats')).json as { blockNumber: number; avgBlockTime: string };
      expect(near.blockNumber).toBe(3);
      expect(near.avgBlockTime).toBe(
        formatAvgBlockTime(Number(BigInt(b3!.timestamp)), Number(BigInt(b0!.timestamp)), 3),
      );
      expect(near.avgBlockTime).not.toBe('0.00'); // a second passed between genesis and block 1
      for (let i = 0; i < 22; i++) await target.reference!.mineBlock();
      const [b25, b5] = await blocksByNumber(target, [25, 5]);
      const later = (await request(target, 'api/stats')).json as { avgBlockTime: string };
      expect(later.avgBlockTime).toBe(
        formatAvgBlockTime(Number(BigInt(b25!.timestamp)), Number(BigInt(b5!.timestamp)), 20),
      );
    }));
});

describe('balance formatting (D-033: four decimals, truncated toward zero)', () => {
  it('truncates, never rounds, and keeps every whole digit', () => {
    expect(formatBalance(123_456_789n * 10n ** 10n)).toBe('1.2345');
    expect(formatBalance(9_999n * 10n ** 10n)).toBe('0.0000');
    expect(formatBalance(UNIT - 1n)).toBe('0.9999');
    expect(formatBalance(0n)).toBe('0.0000');
    expect(formatBalance(9874n * UNIT + UNIT / 2n)).toBe('9874.5000');
    expect(formatBalance(123_456_789_012_345_678_901_234_567_890n)).toBe('123456789012.3456');
    expect(() => formatBalance(-1n)).toThrow(RangeError);
  });

  it('answers /address with 1.2345 for 1.23456789 units, equal to eth_getBalance at the stated block', () =>
    withinRun(async () => {
      const to = getAddress(`0x${'12'.repeat(19)}ab`);
      await minedTransaction(target, { to, value: 123_456_789n * 10n ** 10n });
      const res = await get(`address/${to.toLowerCase()}`);
      expect(res.status).toBe(200);
      const body = res.json as { address: string; balance: string; blockNumber: number };
      expect(body).toEqual({ address: to, balance: '1.2345', blockNumber: await headNumber(target) });
      expect(await rpcResult(target, 'eth_getBalance', [to.toLowerCase(), `0x${body.blockNumber.toString(16)}`])).toBe(
        '0x112210f4768db400',
      );
    }));
});

describe('/txns cache (spec: "cached for 20 seconds; scans the last 200 blocks")', () => {
  it('costs one upstream batch holding the whole 200-block scan when cold, none while warm', () =>
    withinRun(async () => {
      await minedTransaction(target);
      for (let head = await headNumber(target); head < 210; head++) await target.reference!.mineBlock();
      const tx = await minedTransaction(target);
      target.reference!.advanceClock(20_001);
      const batch = vi.spyOn(Upstream.prototype, 'batch');
      const cold = await get('txns');
      expect(cold.status).toBe(200);
      expect((cold.json as { hash: string }[])[0]!.hash).toBe(tx);
      expect(batch).toHaveBeenCalledTimes(1);
      const blockCalls = batch.mock.calls[0]![0].filter((c) => c.method === 'eth_getBlockByNumber');
      expect(blockCalls.length).toBeGreaterThanOrEqual(200);
      batch.mockClear();
      const warm = await get('txns');
      expect(warm.text).toBe(cold.text);
      expect(batch).not.toHaveBeenCalled();
    }));

  it('keeps the list for 20 s of clock time, then reads the chain again', () =>
    withinRun(async () => {
      target.reference!.advanceClock(20_001);
      const first = await get('txns');
      const tx = await minedTransaction(target);
      target.reference!.advanceClock(18_000); // plus the real time the transaction took
      expect((await get('txns')).text).toBe(first.text);
      target.reference!.advanceClock(2_000);
      const refreshed = (await get('txns')).json as { hash: string; blockNumber: number }[];
      expect(refreshed[0]!.hash).toBe(tx);
      expect(refreshed.length).toBeLessThanOrEqual(10);
    }));
});

describe('/block/{id}: 400 for a malformed id, 404 for an unknown block', () => {
  it('answers 200 for decimal numbers and hashes in either case', () =>
    withinRun(async () => {
      const head = await headNumber(target);
      const [block] = await blocksByNumber(target, [head]);
      for (const id of ['0', String(head), block!.hash, `0x${block!.hash.slice(2).toUpperCase()}`]) {
        const res = await get(`block/${id}`);
        expect(res.status, id).toBe(200);
      }
      expect(
        ((await get(`block/${block!.hash.toUpperCase().replace('0X', '0x')}`)).json as { number: number }).number,
      ).toBe(head);
    }));

  it('answers 400 naming "id" for hex numbers, leading zeros, tags and short hashes', () =>
    withinRun(async () => {
      const res = await get('block/0x10');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: '"id" expected a decimal block number or a 0x-prefixed 32-byte block hash, got "0x10"',
        code: 'INVALID_PARAMETER',
      });
      for (const id of ['010', 'latest', '-1', '1.5', randomHash().slice(0, 64), '%20']) {
        expect((await get(`block/${id}`)).status, id).toBe(400);
      }
    }));

  it('answers 404 for a block past the head, a number beyond 2^53 and an unknown hash', () =>
    withinRun(async () => {
      const head = await headNumber(target);
      for (const id of [String(head + 1), '99999999999999999999999', randomHash() as Hex]) {
        const res = await get(`block/${id}`);
        expect(res.status, id).toBe(404);
        expect(res.json).toEqual({ error: `block ${id} not found`, code: 'NOT_FOUND' });
      }
    }));
});

describe('/tx/{hash} and /address/{addr} parameters', () => {
  it('answers 400 for a short hash and 404 for an unknown one', () =>
    withinRun(async () => {
      expect((await get('tx/0x88df0164')).json).toEqual({
        error: '"hash" expected 0x-prefixed 32-byte hex, got "0x88df0164"',
        code: 'INVALID_PARAMETER',
      });
      const unknown = randomHash();
      expect((await get(`tx/${unknown}`)).json).toEqual({
        error: `transaction ${unknown} not found`,
        code: 'NOT_FOUND',
      });
    }));

  it('refuses a mixed-case address with a wrong checksum (D-040) and accepts upper case', () =>
    withinRun(async () => {
      const bad = '0x5b38Da6a701c568545dCfcB03FcB875f56beddC4';
      const res = await get(`address/${bad}`);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: `"addr" expected an EIP-55 checksummed or single-case 0x-prefixed 20-byte address, got "${bad}"`,
        code: 'INVALID_PARAMETER',
      });
      const upper = await get('address/0x5B38DA6A701C568545DCFCB03FCB875F56BEDDC4');
      expect(upper.status).toBe(200);
      expect((upper.json as { address: string }).address).toBe('0x5B38Da6a701c568545dCfcB03FcB875f56beddC4');
    }));
});
