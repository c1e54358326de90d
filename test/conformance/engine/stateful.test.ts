// The stateful phase: against the in-process reference (real TLS, Anvil, PGlite) every sequence runs and no
// named check fails; against the mocks every sequence is skipped with the reason; against a tiny server
// with a linked contract, a deleted resource still readable is caught by use_after_free and a created one
// not readable by ensure_resource_availability.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineCase } from '../../../conformance/engine/core/cases.ts';
import { evaluate } from '../../../conformance/engine/openapi/judges.ts';
import { loadContract } from '../../../conformance/engine/openapi/contract.ts';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../../conformance/engine/target.ts';
import { formatHtml } from '../../../conformance/report/html.ts';
import { mocksTarget } from '../../../conformance/targets/mocks.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import { SPECS_DIR } from '../../../src/paths.ts';
import { engineRunReport } from '../helpers/engine-report.ts';

const SEQUENCE_CHECKS = ['use_after_free', 'ensure_resource_availability'];
const sum = (result: EngineResult, check: string, field: 'passed' | 'failed' | 'skipped') =>
  result.tallies.filter((t) => t.check === check).reduce((n, t) => n + t[field], 0);
const failures = (result: EngineResult) =>
  result.tallies.flatMap((t) =>
    t.failures.map(
      (f) => `${t.surface} ${t.check} ${'sequence' in f.case ? f.case.sequence : ''} ${f.case.operation}: ${f.message}`,
    ),
  );

describe('stateful phase against the in-process reference', () => {
  let result: EngineResult;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const target = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } });
    close = target.close;
    result = await runEngine(await engineTargetOf(target), { phases: ['stateful'], seed: 7, maxExamples: 1 });
  }, 240_000);
  afterAll(async () => {
    await close?.();
  });

  it('runs every sequence with no failure and no skip', () => {
    expect(failures(result)).toEqual([]);
    for (const check of SEQUENCE_CHECKS) expect(sum(result, check, 'skipped'), check).toBe(0);
    for (const t of result.tallies) expect(t.failed, `${t.surface} ${t.check}`).toBe(0);
  });

  it('judges reads after create and uses after delete or revoke on the surfaces that have them', () => {
    const count = (surface: string, check: string) =>
      result.tallies.find((t) => t.surface === surface && t.check === check)?.passed ?? 0;
    // Statement and GET /transfers/{reference} (ledger lifecycle).
    expect(count('institutional', 'ensure_resource_availability')).toBe(2);
    // Account (link), key in use, endpoint (link), its delivery.
    expect(count('admin', 'ensure_resource_availability')).toBe(4);
    // Revoked key → 401, deleted endpoint → 404.
    expect(count('admin', 'use_after_free')).toBe(2);
    // Session in use, device listed; deleted device → 404.
    expect(count('wallet', 'ensure_resource_availability')).toBe(2);
    expect(count('wallet', 'use_after_free')).toBe(1);
    // Every step's answer is also held to the other named checks.
    expect(sum(result, 'response_schema_conformance', 'passed')).toBeGreaterThan(20);
    expect(sum(result, 'positive_data_acceptance', 'passed')).toBeGreaterThan(15);
    // The sequences close the accounts they opened (D-008), and that answer is 200.
    expect(result.coverage.admin?.responses['PATCH /accounts/{id} 200']).toBe(true);
  });

  it('reports the phase with its timings and requests', () => {
    const { report } = engineRunReport(result);
    expect(report.phases).toEqual(['stateful']);
    expect(result.timings.every((t) => t.phase === 'stateful')).toBe(true);
    expect(report.requests).toBe(result.requests);
    expect(result.requests).toBeGreaterThanOrEqual(29);
    expect(report.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining(SEQUENCE_CHECKS.map((check) => `generated.${check}`)),
    );
  });
});

describe('stateful phase against the mocks', () => {
  it('skips every sequence with the reason and sends nothing', async () => {
    const target = await mocksTarget();
    try {
      const result = await runEngine(await engineTargetOf(target), { phases: ['stateful'], seed: 7, maxExamples: 1 });
      expect(result.requests).toBe(0);
      for (const check of SEQUENCE_CHECKS) {
        expect(sum(result, check, 'passed'), check).toBe(0);
        expect(sum(result, check, 'skipped'), check).toBeGreaterThan(0);
      }
      const reasons = result.tallies.flatMap((t) => t.skipReasons);
      expect(reasons).toContain('API key lifecycle: the mocks keep no state: they answer the contract examples');
      expect(reasons).toContain(
        'links of adminCreateAccount: the mocks keep no state: they answer the contract examples',
      );
    } finally {
      await target.close?.();
    }
  }, 60_000);
});

/** A contract with a create operation linked to its read and delete, as the explorer surface of a temporary specs directory. */
const LINKED_CONTRACT = `openapi: 3.1.0
info: { title: linked, version: '1' }
servers: [{ url: 'https://localhost/api' }]
paths:
  /items:
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              additionalProperties: false
              properties: { name: { type: string, pattern: '^[a-z]{1,8}$' } }
      responses:
        '201':
          description: created
          links:
            GetItem: { operationId: getItem, parameters: { id: '$response.body#/id' } }
            DeleteItem: { operationId: deleteItem, parameters: { id: '$response.body#/id' } }
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Item' }
        '400': { $ref: '#/components/responses/Bad' }
  /items/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, pattern: '^it_[0-9]{1,6}$' } }
    get:
      operationId: getItem
      responses:
        '200':
          description: the item
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Item' }
        '404': { $ref: '#/components/responses/Missing' }
    delete:
      operationId: deleteItem
      responses:
        '204': { description: deleted }
        '404': { $ref: '#/components/responses/Missing' }
components:
  responses:
    Bad:
      description: bad
      content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } }
    Missing:
      description: no such item
      content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } }
  schemas:
    Item:
      type: object
      required: [id, name]
      properties: { id: { type: string }, name: { type: string } }
    Error:
      type: object
      required: [error]
      properties: { error: { type: string } }
`;

type Faults = { keepsDeleted?: boolean; losesCreated?: boolean };

async function linkedServer(faults: Faults): Promise<{ app: FastifyInstance; base: URL }> {
  const app = Fastify();
  const items = new Map<string, { id: string; name: string; deleted: boolean }>();
  app.post('/api/items', async (request, reply) => {
    const name = (request.body as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !/^[a-z]{1,8}$/.test(name))
      return reply.code(400).send({ error: '"name" expected 1 to 8 lower-case letters' });
    const id = `it_${items.size + 1}`;
    items.set(id, { id, name, deleted: false });
    return reply.code(201).send({ id, name });
  });
  app.get('/api/items/:id', async (request, reply) => {
    const item = items.get((request.params as { id: string }).id);
    if (!item || faults.losesCreated || (item.deleted && !faults.keepsDeleted))
      return reply.code(404).send({ error: 'no such item' });
    return { id: item.id, name: item.name };
  });
  app.delete('/api/items/:id', async (request, reply) => {
    const item = items.get((request.params as { id: string }).id);
    if (!item || item.deleted) return reply.code(404).send({ error: 'no such item' });
    item.deleted = true;
    return reply.code(204).send();
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: new URL(`${address}/api/`) };
}

describe('stateful phase fault injection', () => {
  const specsDir = mkdtempSync(path.join(tmpdir(), 'svckit-stateful-specs-'));
  writeFileSync(path.join(specsDir, 'explorer.openapi.yaml'), LINKED_CONTRACT);
  async function run(faults: Faults): Promise<EngineResult> {
    const { app, base } = await linkedServer(faults);
    try {
      return await runEngine(
        { bases: { explorer: base }, credentials: {} },
        { phases: ['stateful'], seed: 3, maxExamples: 1, surfaces: ['explorer'], specsDir },
      );
    } finally {
      await app.close();
    }
  }
  const tally = (result: EngineResult, check: string) => result.tallies.find((t) => t.check === check);

  it('passes both sequence checks against the server without faults', async () => {
    const result = await run({});
    expect(failures(result)).toEqual([]);
    expect(tally(result, 'ensure_resource_availability')?.passed).toBe(1);
    expect(tally(result, 'use_after_free')?.passed).toBe(1);
    expect(result.coverage.explorer?.responses).toMatchObject({
      'POST /items 201': true,
      'GET /items/{id} 200': true,
      'GET /items/{id} 404': true,
      'DELETE /items/{id} 204': true,
    });
  });

  it('catches a deleted resource still readable (use_after_free)', async () => {
    const result = await run({ keepsDeleted: true });
    expect(result.tallies.filter((t) => t.failed > 0).map((t) => t.check)).toEqual(['use_after_free']);
    const failure = tally(result, 'use_after_free')?.failures[0];
    expect(failure?.case.operation).toBe('GET /items/{id}');
    expect(failure && 'sequence' in failure.case ? failure.case.sequence : undefined).toBe(
      'links of createItem, step 4',
    );
    expect(failure?.response.status).toBe(200);
    expect(failure?.message).toContain('HTTP 200 for a resource already deleted, expected 404');
    // The report names the sequence and step of the failing case, in its JSON and on its page.
    const { report } = engineRunReport(result);
    const kept = report.checks.find((c) => c.id === 'generated.use_after_free')?.failures ?? [];
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      surface: 'explorer',
      operation: 'GET /items/{id}',
      reason: 'link GetItem after link DeleteItem: what was deleted is gone',
      case: { sequence: 'links of createItem, step 4' },
      caseFile: 'cases/1.json',
    });
    const html = formatHtml(report);
    expect(html).toContain('Made for: link GetItem after link DeleteItem: what was deleted is gone.');
    expect(html).toContain('&quot;sequence&quot;: &quot;links of createItem, step 4&quot;');
  });

  it('catches a created resource not readable (ensure_resource_availability)', async () => {
    const result = await run({ losesCreated: true });
    expect(tally(result, 'ensure_resource_availability')?.failed).toBe(1);
    const failure = tally(result, 'ensure_resource_availability')?.failures[0];
    expect(failure?.case.input.params['path:id']).toBe('it_1');
    expect(failure?.message).toContain('HTTP 404 reading what the sequence just created');
    // The read after the delete answers 404 as it must: use_after_free passes.
    expect(tally(result, 'use_after_free')?.failed).toBe(0);
  });
});

describe('use_after_free on a revoked credential', () => {
  const contract = loadContract(SPECS_DIR, 'institutional');
  const op = contract.operations.find((o) => o.id === 'GET /accounts');
  const revoked: EngineCase = {
    surface: 'institutional',
    operation: 'GET /accounts',
    phase: 'stateful',
    kind: 'after_revoke',
    reason: 'the revoked key no longer authenticates',
    input: { params: {} },
    method: 'GET',
    authenticated: true,
    sequence: 'API key lifecycle, step 4',
  };
  const verdict = (status: number, body: unknown) =>
    evaluate(contract, op as NonNullable<typeof op>, revoked, {
      status,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(body),
      json: body,
    }).find((v) => v.check === 'use_after_free');

  it('fails when the revoked key still lists the accounts, passes on 401', () => {
    expect(verdict(200, { total: 0, page: 1, limit: 50, accounts: [] })).toEqual({
      check: 'use_after_free',
      ok: false,
      message: 'HTTP 200 with a credential already revoked, expected 401 (API key lifecycle, step 4)',
    });
    expect(verdict(401, { error: 'unknown API key', code: 'UNAUTHORIZED' })).toEqual({
      check: 'use_after_free',
      ok: true,
    });
  });
});
