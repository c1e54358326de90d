/**
 * Fiat amounts of owner bindings: decimal strings with at most 2 fraction digits at the edge (as D-033),
 * bigint minor units inside (house rule 5: never floats).
 */

/** "500.5" → 50050n (the contract's pattern has been checked at the edge). */
export function toMinor(amount: string): bigint {
  const [units = '0', fraction = ''] = amount.split('.');
  return BigInt(units) * 100n + BigInt(fraction.padEnd(2, '0') || '0');
}

/** 50050n → "500.50". */
export function fromMinor(minor: bigint): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
