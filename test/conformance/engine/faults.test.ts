// Faults injected into a tiny Fastify server are caught by the right named check, each with a case that
// fast-check shrank to the minimal one; the same server without faults passes every check.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { type Faults, faultServer, faultSpecsDir } from './fault-server.ts';

const servers: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of servers.splice(0)) await app.close();
});

async function run(faults: Faults, phases: ('examples' | 'coverage' | 'fuzz')[] = ['examples', 'coverage', 'fuzz']) {
  const { app, base } = await faultServer(faults);
  servers.push(app);
  return runEngine(
    { bases: { explorer: base }, credentials: {} },
    { phases, seed: 42, maxExamples: 60, surfaces: ['explorer'], specsDir: faultSpecsDir(), concurrency: 4 },
  );
}

const tally = (result: EngineResult, check: string) => result.tallies.find((t) => t.check === check);
const failing = (result: EngineResult) => result.tallies.filter((t) => t.failed > 0).map((t) => t.check);

describe('fault injection', () => {
  it('passes every check against the server without faults', async () => {
    const result = await run({});
    expect(failing(result)).toEqual([]);
    expect(tally(result, 'negative_data_rejection')?.passed).toBeGreaterThan(5);
    expect(tally(result, 'positive_data_acceptance')?.passed).toBeGreaterThan(5);
    expect(tally(result, 'unsupported_method')?.passed).toBe(1);
    expect(tally(result, 'missing_required_header')?.passed).toBe(1);
    expect(result.coverage.explorer?.responses).toEqual({ 'GET /items 200': true, 'GET /items 400': true });
  });

  it('catches a value above the maximum being accepted (negative_data_rejection)', async () => {
    const result = await run({ acceptsAboveMaximum: true }, ['coverage']);
    expect(failing(result)).toEqual(['negative_data_rejection']);
    const failure = tally(result, 'negative_data_rejection')?.failures[0];
    expect(failure?.case.input.params['query:limit']).toBe('11');
    expect(failure?.message).toContain('HTTP 200 for invalid input');
  });

  it('catches a 500 and shrinks the fuzz case to the smallest limit that triggers it (not_a_server_error)', async () => {
    const result = await run({ serverErrorFrom: 7 }, ['fuzz']);
    expect(failing(result)).toContain('not_a_server_error');
    const failure = tally(result, 'not_a_server_error')?.failures[0];
    expect(failure?.shrunk).toBe(true);
    expect(failure?.case.input.params['query:limit']).toBe('7');
    expect(failure?.response.status).toBe(500);
  });

  it('catches a required header left out being accepted (missing_required_header)', async () => {
    const result = await run({ ignoresClientHeader: true }, ['coverage']);
    expect(failing(result)).toContain('missing_required_header');
    const failure = tally(result, 'missing_required_header')?.failures[0];
    expect(failure?.request.headers['x-client']).toBeUndefined();
    expect(failure?.message).toContain('without a required header');
  });

  it('catches an undocumented status (status_code_conformance)', async () => {
    const result = await run({ teapotAt: 3 }, ['fuzz']);
    expect(failing(result)).toContain('status_code_conformance');
    const failure = tally(result, 'status_code_conformance')?.failures[0];
    expect(failure?.case.input.params['query:limit']).toBe('3');
    expect(failure?.message).toContain('HTTP 418 is not documented');
  });
});
