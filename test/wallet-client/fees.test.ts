// Rule 9 (specs/wallet.openapi.yaml): the client applies the fee in basis points before signing.
// D-123: fee = ceil(amount x feeBps / 10000) in bigint, paid on top, to the chain's collector.
import { describe, expect, it } from 'vitest';
import { applyFee, computeFee, fetchFeeConfig, FeeError, type FeeConfig } from '../../src/client/wallet/fees.ts';

const config: FeeConfig = {
  feeBps: 25,
  collectors: [
    { chainId: '1111111', address: '0xD53f8F6E3226491662029902a9b789f0DFE6a80A' },
    { chainId: 'bitcoin', address: 'bc1qj6merx0m5pvjdv6r60m39dlmeregzrsrz7ppsp' },
  ],
  updatedAt: '2026-11-20T16:00:00.000Z',
};

describe('fee in basis points (bigint, rounded up)', () => {
  it('is exact when divisible and rounds up otherwise', () => {
    expect(computeFee(10_000n, 25)).toBe(25n);
    expect(computeFee(1_000_000_000_000_000_000n, 25)).toBe(2_500_000_000_000_000n); // 0.25 % of 1 ether
    expect(computeFee(10_001n, 25)).toBe(26n); // 25.0025 -> 26
    expect(computeFee(1n, 1)).toBe(1n); // any non-zero fee on a non-zero amount is at least one base unit
    expect(computeFee(399n, 25)).toBe(1n);
    expect(computeFee(0n, 25)).toBe(0n);
    expect(computeFee(123_456n, 0)).toBe(0n);
    expect(computeFee(123_456n, 10_000)).toBe(123_456n);
  });

  it('stays exact beyond 2^53 (no floating point)', () => {
    const amount = 2n ** 200n + 12_345n;
    const fee = computeFee(amount, 37);
    expect(fee * 10_000n >= amount * 37n).toBe(true);
    expect((fee - 1n) * 10_000n < amount * 37n).toBe(true);
  });

  it('refuses rates outside 0..10000 and non-integers (D-014)', () => {
    for (const bad of [-1, 10_001, 2.5, Number.NaN]) expect(() => computeFee(1n, bad)).toThrow(FeeError);
    expect(() => computeFee(-1n, 1)).toThrow(FeeError);
  });

  it('quotes amount, fee, total and collector per chain', () => {
    expect(applyFee(config, '1111111', 10_001n)).toEqual({
      chainId: '1111111',
      amount: 10_001n,
      fee: 26n,
      total: 10_027n,
      feeBps: 25,
      collector: config.collectors[0]!.address,
    });
    expect(applyFee({ ...config, feeBps: 0 }, 'tron', 5n)).toMatchObject({ fee: 0n, total: 5n, collector: undefined });
  });

  it('refuses to sign when the fee is due but the chain has no collector', () => {
    expect(() => applyFee(config, 'tron', 1_000_000n)).toThrow(/no collector for chain tron/);
    expect(() => applyFee({ ...config, collectors: [...config.collectors, config.collectors[0]!] }, '1', 1n)).toThrow(
      /two collectors/,
    );
  });

  it('fetchFeeConfig refuses to continue without a configuration', async () => {
    await expect(
      fetchFeeConfig(async () => ({
        error: { error: 'internal error' },
        response: new Response(null, { status: 500 }),
      })),
    ).rejects.toThrow(/refusing to sign/);
    await expect(fetchFeeConfig(async () => ({ data: config }))).resolves.toEqual(config);
  });
});
