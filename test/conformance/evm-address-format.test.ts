// The evm-address format (D-172): every contract schema of an EVM address names it; the harness's contract
// validator and the server's JSON-RPC params validator refuse a mixed-case address with a wrong EIP-55
// checksum that the pattern alone lets through; the fast-check arbitraries give what the format says.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DocumentValidator } from '../../conformance/checks/spec-examples/validator.ts';
import {
  EVM_ADDRESS_FORMAT,
  evmAddress,
  evmAddressWithWrongChecksum,
  isEvmAddress,
} from '../../conformance/formats/evm-address.ts';
import { ParamsValidator } from '../../src/server/chain/params.ts';
import { SPECS_DIR } from '../../src/paths.ts';

const PATTERN = '^0x[0-9a-fA-F]{40}$';
const shape = new RegExp(PATTERN);

/** Every schema node (with its JSON pointer) whose pattern is exactly the EVM address pattern. */
function addressSchemas(node: unknown, at: string, out: { at: string; node: Record<string, unknown> }[]) {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) addressSchemas(n, `${at}/${i}`, out);
  } else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.pattern === PATTERN) out.push({ at, node: record });
    for (const [k, v] of Object.entries(record)) addressSchemas(v, `${at}/${k}`, out);
  }
  return out;
}

const read = (file: string) => {
  const text = readFileSync(path.join(SPECS_DIR, file), 'utf8');
  return (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
};

describe('the evm-address format (D-172)', () => {
  it('is named by every schema of the contracts that has the EVM address pattern', () => {
    const files = readdirSync(SPECS_DIR).filter((f) => /\.(ya?ml|json)$/.test(f));
    const found = files.flatMap((file) => addressSchemas(read(file), file, []));
    expect(found.length).toBeGreaterThanOrEqual(8);
    expect(found.filter((s) => s.node.format !== EVM_ADDRESS_FORMAT).map((s) => s.at)).toEqual([]);
  });

  it('the arbitraries: valid spellings pass the format, wrong checksums fail it, and both match the pattern', () => {
    fc.assert(
      fc.property(evmAddress(), (a) => shape.test(a) && isEvmAddress(a)),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(evmAddressWithWrongChecksum(), (a) => shape.test(a) && !isEvmAddress(a)),
      { numRuns: 300 },
    );
  });

  it("the harness's contract validator refuses a wrong checksum in the explorer, institutional and admin Address", () => {
    const good = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
    const bad = '0x5b38Da6a701c568545dCfcB03FcB875f56beddC4';
    for (const file of ['explorer.openapi.yaml', 'institutional.openapi.yaml', 'admin.openapi.yaml']) {
      const validator = new DocumentValidator(read(file), '2020-12', file);
      const check = (value: string) =>
        validator.validate({ where: file, value, schemaAt: ['components', 'schemas', 'Address'] });
      expect(check(good)).toEqual([]);
      expect(check(good.toLowerCase())).toEqual([]);
      expect(check(`0x${good.slice(2).toUpperCase()}`)).toEqual([]);
      expect(check(bad).join()).toContain('evm-address');
    }
    expect(validatorWarnings()).toEqual([]);
  });

  it("the server's JSON-RPC params validator refuses a wrong checksum and takes each accepted spelling", () => {
    const params = new ParamsValidator();
    fc.assert(
      fc.property(evmAddress(), (a) => {
        params.check('eth_getBalance', [a, 'latest']);
      }),
      { numRuns: 100 },
    );
    fc.assert(
      fc.property(evmAddressWithWrongChecksum(), (a) => {
        expect(() => params.check('eth_getBalance', [a, 'latest'])).toThrow(/format "evm-address"/);
      }),
      { numRuns: 100 },
    );
  });
});

/** An unknown format makes ajv warn; the validator collects warnings, which must stay empty. */
function validatorWarnings(): string[] {
  const validator = new DocumentValidator(read('chain.openrpc.json'), 'draft-07', 'chain.openrpc.json');
  validator.validate({
    where: 'DATA20',
    value: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
    schemaAt: ['components', 'schemas', 'DATA20'],
  });
  return validator.warnings;
}
