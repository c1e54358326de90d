/**
 * Money at the edges (house rule 5): `bigint` wei inside, decimal strings only in requests and responses.
 * D-033: 1 unit = 10^18 wei; requests take at most 2 fraction digits (never rounded); responses print exactly
 * 2 (A) or 4 (D) fraction digits, truncated toward zero.
 */
import { LedgerError, LedgerErrorCode } from './errors.ts';

/** Wei per native settlement unit (D-033). */
export const WEI_PER_UNIT = 10n ** 18n;

const DECIMAL = /^(0|[1-9]\d{0,14})(\.\d{1,2})?$/;

/** Parses a request amount such as "125.50" into wei; 400 naming `field` for anything else (D-026). */
export function parseAmount(field: string, text: unknown): bigint {
  if (typeof text !== 'string' || !DECIMAL.test(text)) {
    throw new LedgerError(
      LedgerErrorCode.INVALID_AMOUNT,
      `"${field}" expected a decimal string with at most 15 integer and 2 fraction digits, got ${JSON.stringify(text)}`,
    );
  }
  const [whole, fraction = ''] = text.split('.');
  const wei = BigInt(whole!) * WEI_PER_UNIT + BigInt(fraction.padEnd(18, '0'));
  if (wei === 0n)
    throw new LedgerError(
      LedgerErrorCode.INVALID_AMOUNT,
      `"${field}" expected an amount greater than 0, got "${text}"`,
    );
  return wei;
}

/** Parses a limit given as a JSON number with at most 2 decimals (D-002) into wei. */
export function parseLimit(field: string, value: unknown): bigint {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? String(value) : '';
  if (!/^(0|[1-9]\d{0,14})(\.\d{1,2})?$/.test(text)) {
    throw new LedgerError(
      LedgerErrorCode.INVALID_PARAMETER,
      `"${field}" expected a number from 0 with at most 2 fraction digits, got ${JSON.stringify(value)}`,
    );
  }
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * WEI_PER_UNIT + BigInt(fraction.padEnd(18, '0'));
}

/** Formats wei with exactly `digits` fraction digits, truncating toward zero (D-033). */
export function formatUnits(wei: bigint, digits: 2 | 4): string {
  const negative = wei < 0n;
  const abs = negative ? -wei : wei;
  const scale = 10n ** BigInt(18 - digits);
  const truncated = abs / scale;
  const text = truncated.toString().padStart(digits + 1, '0');
  return `${negative ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** A limit in wei as the JSON number of the Account object (exact for amounts with 2 decimals, D-002). */
export const limitNumber = (wei: bigint) => Number(formatUnits(wei, 2));
