/**
 * The FX table of the pacs.008 intake (D-053: "The settlement amount comes from a configured FX table when the
 * currency is not SVC"): SVC_FX_RATES, e.g. `EUR=1.05,USD=0.95`, each the native units one unit of the
 * currency buys. Conversion is exact in bigint and truncated toward zero to 2 fraction digits (D-033).
 */
import { WEI_PER_UNIT } from '../money.ts';

/** Rates in wei of native unit per whole unit of the currency. */
export type FxTable = ReadonlyMap<string, bigint>;

/** The default table (the contract's example locks 1250.50 EUR at 1313.02 SVC: 1.05). */
export const DEFAULT_FX_RATES = 'EUR=1.05,USD=0.95,GBP=1.20,CHF=1.08,JPY=0.0063';

const RATE = /^([A-Z]{3})=(0|[1-9]\d{0,8})(\.\d{1,18})?$/;

/** Parses `CCY=rate,...`; throws naming the bad entry. */
export function parseFxRates(text: string): FxTable {
  const table = new Map<string, bigint>();
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = RATE.exec(entry);
    if (!match) throw new Error(`expected entries CCY=rate (3 upper-case letters, a decimal rate), got "${entry}"`);
    const [, ccy, whole, fraction = '.'] = match;
    const wei = BigInt(whole!) * WEI_PER_UNIT + BigInt(fraction.slice(1).padEnd(18, '0'));
    if (wei === 0n) throw new Error(`expected a rate above 0, got "${entry}"`);
    table.set(ccy!, wei);
  }
  return table;
}

/** `amountWei` of the currency in native wei at `rateWei`, truncated to 2 fraction digits (D-033). */
export function convert(amountWei: bigint, rateWei: bigint): bigint {
  const exact = (amountWei * rateWei) / WEI_PER_UNIT;
  const cent = WEI_PER_UNIT / 100n;
  return exact - (exact % cent);
}
