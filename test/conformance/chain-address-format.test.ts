// D-188: the wallet contract's chain-address format is the server's own address check, and the generated
// values of the engine pass it in every family.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentValidator } from '../../conformance/checks/spec-examples/validator.ts';
import { chainAddress, isChainAddress } from '../../conformance/formats/chain-address.ts';
import { addressFamily } from '../../src/client/wallet/codec.ts';

describe('the chain-address format (D-188)', () => {
  it('accepts the three families with valid checksums and refuses a broken checksum in each', () => {
    expect(isChainAddress('0x5B38Da6a701c568545dCfcB03FcB875f56beddC4')).toBe(true);
    expect(isChainAddress('0x5b38da6a701c568545dcfcb03fcb875f56beddc4')).toBe(true);
    expect(isChainAddress('0x5B38Da6a701c568545dCfcB03FcB875f56beddc4')).toBe(false);
    expect(isChainAddress('bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrg')).toBe(true);
    expect(isChainAddress('bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrq')).toBe(false);
    expect(isChainAddress('TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwE')).toBe(true);
    expect(isChainAddress('TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwF')).toBe(false);
  });

  it('generates valid addresses of every family', () => {
    const families = new Set<string>();
    fc.assert(
      fc.property(chainAddress(), (address) => {
        families.add(String(addressFamily(address)));
        return isChainAddress(address);
      }),
      { numRuns: 300, seed: 7 },
    );
    expect(families).toEqual(new Set(['evm', 'bitcoin', 'tron']));
  });

  it('is what the contract validator applies to ChainAddress', () => {
    const doc = { components: { schemas: { A: { type: 'string', format: 'chain-address' } } } };
    const validator = new DocumentValidator(doc, '2020-12', 'test');
    const at = ['components', 'schemas', 'A'];
    expect(validator.validate({ where: 'ok', value: 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwE', schemaAt: at })).toEqual([]);
    expect(validator.validate({ where: 'bad', value: 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwF', schemaAt: at })).not.toEqual(
      [],
    );
  });
});
