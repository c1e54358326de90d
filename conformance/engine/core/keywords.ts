/**
 * Extension keywords of the contracts for rules JSON Schema cannot state (D-197, D-198), registered with
 * every ajv instance of the engine (and the mocks, which share it), and known to the generator so a value it
 * draws as valid is valid:
 * - `x-same-data: ["data", "input"]` (chain call objects): both members, when present, hold the same bytes;
 * - `x-block-range: ["fromBlock", "toBlock"]` (the chain log filter): a numbered range is not reversed;
 *   both come from src/server/chain/keywords.ts, which the chain surface's server registers too;
 * - `x-not-after-now: true` (a date-time): the time is not later than the moment it is judged.
 */
import type AjvCore from 'ajv/dist/core.js';
import fc from 'fast-check';
import { addChainKeywords } from '../../../src/server/chain/keywords.ts';
import type { Schema } from './schema.ts';

/** The keyword of a date-time that must not lie in the future (D-198). */
export const NOT_AFTER_NOW = 'x-not-after-now';

/** The future time a negative variant of `x-not-after-now` sends. */
export const A_FUTURE_TIME = '2999-12-31T23:59:59.000Z';

/** True when `schema` carries `x-not-after-now: true`. */
export function notAfterNow(schema: Schema): boolean {
  return schema[NOT_AFTER_NOW] === true;
}

/** Date-times from 2000 up to a minute before the arbitrary is made: never after now when sent. */
export function pastDateTimes(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date(Date.now() - 60_000), noInvalidDate: true })
    .map((d) => d.toISOString());
}

/** Registers the extension keywords with an ajv instance; returns it. */
export function registerAjvKeywords<T extends Pick<AjvCore, 'addKeyword'>>(ajv: T): T {
  addChainKeywords(ajv);
  ajv.addKeyword({
    keyword: NOT_AFTER_NOW,
    schemaType: 'boolean',
    validate: function notLater(on: boolean, value: unknown) {
      const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      // Another keyword (`type`, `format`) refuses what is not a time.
      const ok = !on || Number.isNaN(time) || time <= Date.now();
      if (!ok)
        (notLater as unknown as { errors: unknown[] }).errors = [
          { keyword: NOT_AFTER_NOW, message: 'must not be later than now', params: {} },
        ];
      return ok;
    },
    errors: true,
  });
  return ajv;
}
