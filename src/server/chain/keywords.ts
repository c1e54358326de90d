/**
 * Extension keywords of the chain contract for rules draft-07 cannot state (D-197), registered with the
 * gateway's params validator and with the conformance engine's, so both read the rule from the contract:
 * - `x-same-data: ["data", "input"]` on a call object: when both members are present they hold the same
 *   bytes (hex DATA, compared without regard to letter case; D-131);
 * - `x-block-range: ["fromBlock", "toBlock"]` on a log filter: when both are block numbers, the first is not
 *   after the second (-32602, as execution-apis's `filter-error-reversed-block-range`). The keyword also
 *   says a block number past the chain's head is -32602 (execution-apis's
 *   `filter-error-future-block-range`); that part depends on the chain, so no validator of params checks it.
 */
import type AjvCore from 'ajv/dist/core.js';

/** The call-data keyword's name, as the contract writes it. */
export const SAME_DATA_KEYWORD = 'x-same-data';
/** The block-range keyword's name, as the contract writes it. */
export const BLOCK_RANGE_KEYWORD = 'x-block-range';

/** True when every member of `names` present in `value` holds the same hex string (any letter case). */
export function sameData(names: readonly string[], value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const present = names
    .map((n) => (value as Record<string, unknown>)[n])
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.toLowerCase());
  return present.every((v) => v === present[0]);
}

/** The block number a block parameter names (a hex QUANTITY), or undefined for a tag or anything else. */
export function blockNumberOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^0x[0-9a-f]{1,64}$/i.test(value) ? BigInt(value) : undefined;
}

/** True unless both members of `[from, to]` in `value` are block numbers and the first is after the second. */
export function orderedRange([from, to]: readonly string[], value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !from || !to) return true;
  const a = blockNumberOf((value as Record<string, unknown>)[from]);
  const b = blockNumberOf((value as Record<string, unknown>)[to]);
  return a === undefined || b === undefined || a <= b;
}

type Check = (names: string[], value: unknown) => boolean;

/** Registers one keyword whose schema value is a list of member names. */
function addNamesKeyword(
  ajv: Pick<AjvCore, 'addKeyword'>,
  keyword: string,
  check: Check,
  message: (names: string[]) => string,
): void {
  ajv.addKeyword({
    keyword,
    schemaType: 'array',
    validate: function named(names: string[], value: unknown) {
      const ok = check(names, value);
      if (!ok)
        (named as unknown as { errors: unknown[] }).errors = [{ keyword, message: message(names), params: { names } }];
      return ok;
    },
    errors: true,
  });
}

/** Registers both keywords with an ajv instance (draft-07); returns it. */
export function addChainKeywords<T extends Pick<AjvCore, 'addKeyword'>>(ajv: T): T {
  addNamesKeyword(
    ajv,
    SAME_DATA_KEYWORD,
    sameData,
    (names) => `must hold the same bytes in ${names.map((n) => `"${n}"`).join(' and ')} when both are set`,
  );
  addNamesKeyword(
    ajv,
    BLOCK_RANGE_KEYWORD,
    orderedRange,
    ([from, to]) => `must not name a "${from}" block after its "${to}" block`,
  );
  return ajv;
}
