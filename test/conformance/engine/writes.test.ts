// Every write operation of the four OpenAPI contracts has a class saying how a run puts back what it changes
// (D-235): a new write operation in a contract fails here until it is classified, and each class names what
// its mechanics need (an undo, the history kind, the resource a change is confined to) from the contract itself.
import { describe, expect, it } from 'vitest';
import { ENGINE_SURFACES, type EngineSurface, loadContract } from '../../../conformance/engine/openapi/contract.ts';
import { type IdFrom, WRITES } from '../../../conformance/engine/openapi/writes.ts';
import { SPECS_DIR } from '../../../src/paths.ts';

const surfaces = Object.keys(ENGINE_SURFACES) as EngineSurface[];
const contracts = Object.fromEntries(surfaces.map((s) => [s, loadContract(SPECS_DIR, s)]));
const operation = (surface: EngineSurface, id: string) => contracts[surface]?.operations.find((op) => op.id === id);

describe('the classification of write operations', () => {
  it('classifies every write operation of the contracts, and only those', () => {
    for (const surface of surfaces) {
      const writes = contracts[surface]!.operations.filter((op) => op.method !== 'GET').map((op) => op.id);
      expect(Object.keys(WRITES[surface]).sort(), surface).toEqual(writes.sort());
    }
    expect(surfaces.reduce((n, s) => n + Object.keys(WRITES[s]).length, 0)).toBe(41);
  });

  it('reads every id where the contract puts it, and undoes with an operation of the same contract', () => {
    for (const surface of surfaces)
      for (const [id, rule] of Object.entries(WRITES[surface])) {
        const op = operation(surface, id)!;
        const holds = (from: IdFrom) => {
          if ('path' in from) return op.parameters.some((p) => p.in === 'path' && p.name === from.path);
          if ('body' in from) return from.body in ((op.body?.schema.properties as object | undefined) ?? {});
          const status = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
          return from.answer in ((op.responses[status]?.schema?.properties as object | undefined) ?? {});
        };
        for (const from of [rule.undo?.id, rule.changes?.id, rule.ends?.id, rule.left?.id])
          if (from) expect(holds(from), `${surface} ${id} ${JSON.stringify(from)}`).toBe(true);
        if (rule.undo) expect(operation(surface, rule.undo.call), `${id} undo`).toBeDefined();
        expect(rule.why, id).toMatch(/D-\d{3}/);
      }
  });

  it('gives each class what it needs', () => {
    for (const surface of surfaces)
      for (const [id, rule] of Object.entries(WRITES[surface])) {
        if (rule.class === 'history') expect(rule.left, id).toBeDefined();
        if (rule.class !== 'history') expect(rule.left, id).toBeUndefined();
        if (rule.class === 'avoided' || rule.class === 'read-only')
          expect(Object.keys(rule).sort(), id).toEqual(['class', 'why']);
      }
    const avoided = surfaces.flatMap((s) =>
      Object.entries(WRITES[s])
        .filter(([, r]) => r.class === 'avoided')
        .map(([id]) => id),
    );
    expect(avoided.sort()).toEqual([
      'POST /admin-token/rotate',
      'POST /kek/rotate',
      'POST /metrics-token',
      'POST /qbft/votes',
      'POST /wallet-keys/{name}/rotate',
    ]);
  });
});
