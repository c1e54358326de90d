// The version and CHANGES.md rules (D-248), a shared component named once with every place that uses it
// (D-247), folders read with their formats detected, and bad input refused with a clear error.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DiffInputError, diffContract, diffSides, fails, readSide } from '../../conformance/diff/index.ts';
import type { Side } from '../../conformance/diff/load.ts';
import { contract, JSONSCHEMA, OPENAPI, OPENRPC } from './fixtures.ts';

const API = 'institutional.openapi.yaml';

function side(documents: Record<string, unknown>, changelog?: string): Side {
  return {
    label: 'x',
    folder: true,
    changelog,
    contracts: new Map(Object.entries(documents).map(([name, doc]) => [name, contract(name, doc)])),
  };
}

function withBreakingChange(version: string) {
  const after = structuredClone(OPENAPI);
  delete (after.paths as Record<string, unknown>)['/accounts/{id}'];
  after.info.version = version;
  return after;
}

describe('svckit diff: versions and CHANGES.md', () => {
  it('a breaking change without a major bump is breaking, and needs a CHANGES.md entry', () => {
    const changes = diffSides(side({ [API]: OPENAPI }), side({ [API]: withBreakingChange('1.1.0') }));
    expect(changes.map((c) => [c.rule, c.level])).toEqual([
      ['openapi.path_removed', 'breaking'],
      ['version.major_not_bumped', 'breaking'],
      ['changes.entry_missing', 'breaking'],
    ]);
  });

  it('a major bump with its CHANGES.md heading leaves only the change itself', () => {
    const changes = diffSides(
      side({ [API]: OPENAPI }),
      side({ [API]: withBreakingChange('2.0.0') }, `# Changes\n\n## ${API} 2.0.0\n\n- /accounts/{id} removed\n`),
    );
    expect(changes.map((c) => c.rule)).toEqual(['openapi.path_removed']);
  });

  it('before 1.0.0 a missing bump is a warning (semver 0.x)', () => {
    const before = { ...structuredClone(OPENAPI), info: { title: 't', version: '0.3.0' } };
    const changes = diffSides(side({ [API]: before }), side({ [API]: withBreakingChange('0.3.1') }, `## ${API} 0.3.1`));
    expect(changes.map((c) => [c.rule, c.level])).toEqual([
      ['openapi.path_removed', 'breaking'],
      ['version.major_not_bumped_0x', 'warning'],
    ]);
  });

  it('an addition without a minor bump is a warning, and a minor bump silences it (D-028)', () => {
    const withOperation = (version: string) => {
      const after = structuredClone(OPENAPI);
      (after.paths as Record<string, unknown>)['/health'] = {
        get: { operationId: 'health', responses: { '200': { description: 'ok' } } },
      };
      after.info.version = version;
      return after;
    };
    const before = { ...OPENAPI, info: { ...OPENAPI.info, version: '1.2.3' } };
    const unbumped = diffSides(side({ [API]: before }), side({ [API]: withOperation('1.2.4') }));
    expect(unbumped.map((c) => [c.rule, c.level])).toEqual([
      ['version.minor_not_bumped', 'warning'],
      ['openapi.operation_added', 'info'],
    ]);
    expect(fails(unbumped, 'warning')).toBe(true);
    expect(fails(unbumped, 'breaking')).toBe(false);
    const bumped = diffSides(side({ [API]: before }), side({ [API]: withOperation('1.3.0') }));
    expect(bumped.map((c) => c.rule)).toEqual(['openapi.operation_added']);
  });

  it('a version that is not semver cannot carry a breaking change', () => {
    const changes = diffSides(
      side({ [API]: OPENAPI }),
      side({ [API]: withBreakingChange('latest') }, `## ${API} latest`),
    );
    expect(changes.map((c) => c.rule)).toContain('version.invalid');
  });

  it('a contract removed is breaking, one added is info, and --fail-on follows the levels', () => {
    const changes = diffSides(side({ [API]: OPENAPI }), side({ 'chain.openrpc.json': OPENRPC }));
    expect(changes.map((c) => [c.rule, c.level])).toEqual([
      ['contract.removed', 'breaking'],
      ['contract.added', 'info'],
    ]);
    expect(fails(changes, 'breaking')).toBe(true);
    expect(
      fails(
        changes.filter((c) => c.level === 'info'),
        'warning',
      ),
    ).toBe(false);
  });
});

describe('svckit diff: $refs', () => {
  it('a change in a shared component is reported once, naming every place that uses it', () => {
    const after = structuredClone(OPENAPI);
    after.components.schemas.Account.properties.name.type = ['string', 'null'] as unknown as string;
    const [change, ...rest] = diffContract(contract(API, OPENAPI), contract(API, after));
    expect(rest).toEqual([]);
    expect(change).toMatchObject({
      rule: 'openapi.response.type_widened',
      newPointer: '/components/schemas/Account/properties/name',
    });
    expect(change?.places.sort()).toEqual(['GET /accounts 200', 'GET /accounts/{id} 200', 'POST /accounts 201']);
  });

  it('a recursive schema is compared without looping', () => {
    const tree = {
      ...JSONSCHEMA,
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, n: { type: 'number' } } } },
      properties: { root: { $ref: '#/$defs/Node' } },
    };
    const after = structuredClone(tree);
    after.$defs.Node.properties.n.type = 'integer';
    expect(diffContract(contract('t.schema.json', tree), contract('t.schema.json', after)).map((c) => c.rule)).toEqual([
      'jsonschema.type_narrowed',
    ]);
  });

  it('a $ref to another file or to nothing is bad input, not a crash', () => {
    const external = { ...JSONSCHEMA, properties: { a: { $ref: 'other.json#/x' } } };
    expect(() => diffContract(contract('t.schema.json', external), contract('t.schema.json', external))).toThrow(
      DiffInputError,
    );
    const dangling = { ...JSONSCHEMA, properties: { a: { $ref: '#/$defs/missing' } } };
    expect(() => diffContract(contract('t.schema.json', dangling), contract('t.schema.json', dangling))).toThrow(
      /names nothing/,
    );
    const loop = {
      ...JSONSCHEMA,
      $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      properties: { x: { $ref: '#/$defs/a' } },
    };
    expect(() => diffContract(contract('t.schema.json', loop), contract('t.schema.json', loop))).toThrow(/cycle/);
  });
});

describe('svckit diff: reading folders', () => {
  it('detects each format from the content and skips files that are none of the four', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svckit-diff-'));
    mkdirSync(path.join(dir, 'specs'));
    writeFileSync(path.join(dir, 'specs', 'a.yaml'), stringify(OPENAPI));
    writeFileSync(path.join(dir, 'specs', 'b.json'), JSON.stringify(OPENRPC));
    writeFileSync(path.join(dir, 'specs', 'c.json'), JSON.stringify(JSONSCHEMA));
    writeFileSync(path.join(dir, 'specs', 'settings.json'), JSON.stringify({ name: 'not a contract' }));
    const read = readSide(path.join(dir, 'specs'), 'specs');
    expect([...read.contracts.values()].map((c) => [c.name, c.format])).toEqual([
      ['a.yaml', 'openapi'],
      ['b.json', 'openrpc'],
      ['c.json', 'jsonschema'],
    ]);
    writeFileSync(path.join(dir, 'broken.yaml'), 'openapi: [');
    expect(() => readSide(path.join(dir, 'broken.yaml'), 'specs')).toThrow(/not YAML or JSON/);
    expect(() => readSide(path.join(dir, 'specs', 'settings.json'), 'specs')).toThrow(
      /not an OpenAPI, AsyncAPI, OpenRPC or JSON Schema/,
    );
  });
});
