/**
 * Named string formats (`format:` in the contracts) and how to generate them: a fast-check arbitrary for
 * valid strings and a few strings that are not of the format. A format the server checks but ajv does not
 * know (e.g. `evm-address`, D-172) registers here and in {@link registerAjvFormats}; the generator then
 * produces values of that format wherever a contract names it.
 */
import type Ajv from 'ajv/dist/core.js';
import fc from 'fast-check';
import { CHAIN_ADDRESS_FORMAT, chainAddress, isChainAddress } from '../../formats/chain-address.ts';
import { isMlKemEncapsulationKey, MLKEM_KEY_FORMAT, mlKemEncapsulationKey } from '../../formats/mlkem-key.ts';
import { EVM_ADDRESS_FORMAT, evmAddress, isEvmAddress } from '../../formats/evm-address.ts';

/** How one format is generated and checked. */
export interface FormatGenerator {
  /** Valid strings of the format. */
  valid: fc.Arbitrary<string>;
  /** Strings that are not of the format (negative variants). */
  invalid: readonly string[];
  /** The check ajv uses, for formats ajv-formats does not know. */
  validate?: (value: string) => boolean;
}

/** The registry: format name → generator. Add a format with {@link registerFormat}. */
export const FORMATS = new Map<string, FormatGenerator>([
  [
    'date-time',
    {
      valid: fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
        .map((d) => d.toISOString()),
      invalid: ['not-a-date-time', '2024-13-45T99:99:99Z'],
    },
  ],
  [
    'date',
    {
      valid: fc
        .date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2099-12-31') })
        .map((d) => d.toISOString().slice(0, 10)),
      invalid: ['2024-02-31x'],
    },
  ],
  ['uuid', { valid: fc.uuid({ version: 4 }), invalid: ['not-a-uuid', '00000000-0000-4000-8000-00000000000g'] }],
  [
    'email',
    { valid: fc.stringMatching(/^[a-z]{1,10}@[a-z]{1,10}\.example$/), invalid: ['no-at-sign', '@missing-local'] },
  ],
  ['uri', { valid: fc.stringMatching(/^https:\/\/[a-z]{1,10}\.example\/[a-z]{0,10}$/), invalid: ['not a uri', '::'] }],
  [
    MLKEM_KEY_FORMAT,
    {
      // D-188: a real encapsulation key; a string of the right length whose coefficients break the modulus check is not.
      valid: mlKemEncapsulationKey(),
      invalid: ['ff'.repeat(1184), 'not-a-key'],
      validate: isMlKemEncapsulationKey,
    },
  ],
  [
    CHAIN_ADDRESS_FORMAT,
    {
      // D-188: EVM, Bitcoin P2WPKH or Tron, each with a valid checksum.
      valid: chainAddress(),
      invalid: ['bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrq', 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwF', 'not-an-address'],
      validate: isChainAddress,
    },
  ],
  [
    EVM_ADDRESS_FORMAT,
    {
      // D-172: lower case, upper case, or a valid EIP-55 checksum.
      valid: evmAddress(),
      // A valid address with its checksum broken: one letter's case flipped.
      invalid: ['0x5B38DA6a701c568545dCfcB03FcB875f56beddC4', 'not-an-address'],
      validate: isEvmAddress,
    },
  ],
]);

/** Adds or replaces a format (e.g. a contract's new named format). */
export function registerFormat(name: string, generator: FormatGenerator): void {
  FORMATS.set(name, generator);
}

/** Teaches ajv the registered formats it does not know (ajv-formats covers the standard ones). */
export function registerAjvFormats(ajv: Ajv): void {
  for (const [name, generator] of FORMATS) if (generator.validate) ajv.addFormat(name, generator.validate);
}
