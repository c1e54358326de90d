// The EIP-55 check of the wallet's addresses and of the fee-collector settings (src/server/wallet/addresses.ts,
// on the wallet codec) agrees with viem's strict isAddress, so that loading the settings needs no viem.
import { randomBytes } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { addressKind, checksumOk } from '../../src/server/wallet/addresses.ts';

/** The check as the wallet made it with viem: strict EIP-55, or a single case throughout. */
const viaViem = (a: string) =>
  isAddress(a, { strict: true }) || a.slice(2) === a.slice(2).toLowerCase() || a.slice(2) === a.slice(2).toUpperCase();

/** `address` with the case of one hex letter flipped, or undefined when it has none. */
function flipOne(address: string): string | undefined {
  const at = [...address].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
  if (at < 0) return undefined;
  const c = address[at]!;
  return address.slice(0, at) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(at + 1);
}

describe('checksumOk', () => {
  it('accepts the EIP-55 examples and refuses them with one letter of the wrong case', () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(checksumOk(address), address).toBe(true);
      expect(checksumOk(flipOne(address)!), address).toBe(false);
      expect(addressKind(address)).toBe('evm');
    }
  });

  it('answers as viem does for random addresses in every case form', () => {
    for (let i = 0; i < 500; i++) {
      const good = getAddress(`0x${randomBytes(20).toString('hex')}`);
      for (const address of [
        good,
        flipOne(good),
        good.toLowerCase(),
        `0x${good.slice(2).toUpperCase()}`,
        `0X${good.slice(2)}`,
        good.slice(0, 41),
      ]) {
        if (address !== undefined) expect(checksumOk(address), address).toBe(viaViem(address));
      }
    }
  });
});
