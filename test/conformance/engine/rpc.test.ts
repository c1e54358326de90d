// The engine's chain surface: cases generated from specs/chain.openrpc.json, sent as JSON-RPC 2.0 to a real
// Anvil node and to the in-process reference, judged by the named checks (D-193), with coverage of
// methods × documented error codes and the tls_hybrid_group check on every origin.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireResponse } from '../../../conformance/engine/core/client.ts';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../../conformance/engine/target.ts';
import { loadRpcContract, paramsVariants, rpcCase, rpcInputs } from '../../../conformance/engine/openrpc/contract.ts';
import { evaluateRpc } from '../../../conformance/engine/openrpc/judges.ts';
import { formatHtml } from '../../../conformance/report/html.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { anvilBinary, freePort } from '../../../src/node/anvil.ts';
import { SPECS_DIR } from '../../../src/paths.ts';
import { engineRunReport } from '../helpers/engine-report.ts';

const contract = loadRpcContract(SPECS_DIR);
const method = (name: string) => {
  const found = contract.methods.find((m) => m.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};
const answer = (json: unknown, status = 200): WireResponse => ({
  status,
  headers: {},
  text: JSON.stringify(json),
  json,
});
const tally = (r: EngineResult, check: string) => r.tallies.find((t) => t.surface === 'chain' && t.check === check);

describe('chain cases from the OpenRPC contract', () => {
  it('reads the HTTP methods with their params, result schemas and documented errors', () => {
    expect(contract.methods.map((m) => m.name)).toContain('eth_getBalance');
    expect(contract.methods.map((m) => m.name)).not.toContain('eth_subscribe'); // WebSocket only (D-012)
    expect(method('eth_getBalance').params.map((p) => p.name)).toEqual(['address', 'blockNumber']);
    expect(method('eth_sendRawTransaction').errors.map((e) => e.code)).toContain(-32007);
  });

  it("leaves out the examples the contract marks illustrative (D-231), and keeps every other method's examples", () => {
    const raw = JSON.parse(readFileSync(`${SPECS_DIR}/chain.openrpc.json`, 'utf8')) as {
      methods: Array<{ name: string; examples?: Array<{ name: string; 'x-illustrative'?: boolean }> }>;
    };
    const illustrative = raw.methods.flatMap((m) =>
      (m.examples ?? []).filter((ex) => ex['x-illustrative'] === true).map((ex) => `${m.name} ${ex.name}`),
    );
    expect(illustrative).toEqual(['eth_sendRawTransaction legacyTransfer']);
    // The HTTP methods the engine reads (the WebSocket ones are not among them).
    expect(contract.methods.length).toBeGreaterThan(20);
    for (const method of contract.methods) {
      const examples = raw.methods.find((m) => m.name === method.name)?.examples ?? [];
      expect(method.examples, method.name).toHaveLength(examples.filter((ex) => ex['x-illustrative'] !== true).length);
    }
    expect(rpcInputs(contract.methods.find((m) => m.name === 'eth_sendRawTransaction')!, 'examples', 1, 1)).toEqual([]);
  });

  it('derives invalid variants ajv refuses: a bad address, a missing param, one param too many', () => {
    const m = method('eth_getBalance');
    const variants = paramsVariants(m, ['0x0000000000000000000000000000000000000001', 'latest']);
    const invalid = variants.filter((v) => !v.valid).map((v) => v.reason);
    expect(invalid.some((r) => r.startsWith('param address:'))).toBe(true);
    expect(invalid).toContain('param blockNumber missing (required)');
    expect(invalid).toContain('an extra param past the 2 the method takes');
  });

  it('judges answers: -32602 for invalid params, no -32603 for bad input, known codes, results or state errors', () => {
    const m = method('eth_getBalance');
    const bad = rpcCase(m, 'coverage', { valid: false, reason: 'short address', params: ['0x12', 'latest'] }, 4);
    const good = rpcCase(m, 'coverage', { valid: true, reason: 'valid', params: [`0x${'0'.repeat(40)}`, 'latest'] }, 5);
    const verdicts = (c: typeof bad, json: unknown) =>
      Object.fromEntries(evaluateRpc(contract, m, c, answer(json)).map((v) => [v.check, v.ok]));
    expect(verdicts(bad, { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params' } })).toEqual({
      not_a_server_error: true,
      response_schema_conformance: true,
      jsonrpc_error_codes: true,
      negative_data_rejection: true,
    });
    const internal = verdicts(bad, { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'Internal error' } });
    expect(internal.not_a_server_error).toBe(false);
    expect(internal.negative_data_rejection).toBe(false);
    expect(verdicts(bad, { jsonrpc: '2.0', id: 4, result: '0x0' }).negative_data_rejection).toBe(false);
    expect(verdicts(good, { jsonrpc: '2.0', id: 5, error: { code: -31999, message: 'x' } }).jsonrpc_error_codes).toBe(
      false,
    );
    expect(verdicts(good, { jsonrpc: '2.0', id: 5, result: '0x0' }).positive_data_acceptance).toBe(true);
    expect(verdicts(good, { jsonrpc: '2.0', id: 5, result: 'zero' }).response_schema_conformance).toBe(false);
    expect(verdicts(good, { jsonrpc: '2.0', id: 6, result: '0x0' }).response_schema_conformance).toBe(false);
    // An unknown block hash is the chain's state (-32001, D-193); -32601 says the node lacks the method.
    expect(
      verdicts(good, { jsonrpc: '2.0', id: 5, error: { code: -32001, message: 'Resource not found' } })
        .positive_data_acceptance,
    ).toBe(true);
    expect(
      verdicts(good, { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found' } })
        .positive_data_acceptance,
    ).toBe(false);
  });
});

describe('the chain surface against a real Anvil node', { timeout: 240_000 }, () => {
  let anvil: ChildProcess;
  let rpc: URL;
  let result: EngineResult;

  beforeAll(async () => {
    const port = await freePort();
    anvil = spawn(anvilBinary(), ['--chain-id', '1111111', '--host', '127.0.0.1', '--port', String(port)], {
      stdio: 'ignore',
    });
    rpc = new URL(`http://127.0.0.1:${port}/`);
    const deadline = Date.now() + 10_000;
    while (!(await fetch(rpc, { method: 'POST' }).catch(() => undefined))) {
      if (Date.now() > deadline) throw new Error(`Anvil did not answer on ${rpc.href} within 10 s`);
      await new Promise((r) => setTimeout(r, 25));
    }
    result = await runEngine(
      { bases: {}, credentials: {}, rpc },
      { phases: ['examples', 'coverage', 'fuzz'], seed: 20261124, maxExamples: 5, shrinkMs: 3_000 },
    );
  }, 120_000);

  afterAll(() => {
    anvil?.kill('SIGTERM');
  });

  it('runs the chain surface alone and reports what the node lacks as failed, with the method', () => {
    expect(Object.keys(result.coverage)).toEqual(['chain']);
    const lacks = tally(result, 'positive_data_acceptance')?.failures.map((f) => f.message) ?? [];
    expect(lacks.some((m) => /the node lacks qbft_getValidatorsByBlockNumber \(-32601/.test(m))).toBe(true);
    expect(result.coverage.chain?.operations.qbft_getPendingVotes).toBe(false);
    expect(result.coverage.chain?.operations.eth_chainId).toBe(true);
    expect(tally(result, 'not_a_server_error')?.passed).toBeGreaterThan(100);
  });

  it('reports the chain as a surface: methods × error codes covered, a failure with the body POSTed to the node', () => {
    const { report } = engineRunReport(result);
    const chain = report.surfaces.chain;
    expect(chain?.coverage?.operations.total).toBe(contract.methods.length);
    const responses = result.coverage.chain?.responses ?? {};
    expect(responses['eth_chainId result']).toBe(true);
    expect(responses).toHaveProperty(['eth_sendRawTransaction -32007']);
    expect(chain?.coverage?.responses).toEqual({
      covered: Object.values(responses).filter(Boolean).length,
      total: Object.keys(responses).length,
    });
    const lacks = report.checks
      .find((c) => c.id === 'generated.positive_data_acceptance')
      ?.failures?.find((f) => f.operation === 'qbft_getValidatorsByBlockNumber');
    expect(lacks).toMatchObject({ surface: 'chain', request: { method: 'POST', url: rpc.href } });
    expect(JSON.parse(lacks?.request.body ?? '{}')).toMatchObject({
      jsonrpc: '2.0',
      method: 'qbft_getValidatorsByBlockNumber',
    });
    const html = formatHtml(report);
    expect(html).toContain('<code>qbft_getValidatorsByBlockNumber</code> on chain</h4>');
    expect(html).toContain(`<pre class="request">POST ${rpc.href}\n`);
    expect(html).toContain('&quot;method&quot;: &quot;qbft_getValidatorsByBlockNumber&quot;');
  });

  it('skips tls_hybrid_group on a plain-http loopback node, with the reason', () => {
    const tls = tally(result, 'tls_hybrid_group');
    expect(tls).toMatchObject({ passed: 0, failed: 0, skipped: 1 });
    expect(tls?.skipReasons[0]).toContain('is plain http (a loopback node, D-192)');
  });
});

describe('the chain surface against the in-process reference', { timeout: 300_000 }, () => {
  let target: Target;
  let result: EngineResult;

  beforeAll(async () => {
    target = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV } });
    const engineTarget = await engineTargetOf(target);
    result = await runEngine(engineTarget, {
      phases: ['examples', 'coverage', 'fuzz'],
      seed: 20261124,
      maxExamples: 5,
      shrinkMs: 3_000,
      surfaces: ['chain', 'wallet'],
    });
  }, 240_000);

  afterAll(async () => {
    await target?.close?.();
  });

  it('answers every method, accepts every valid param list, refuses every invalid one with -32602', () => {
    const cov = result.coverage.chain;
    expect(Object.values(cov?.operations ?? {}).every(Boolean), JSON.stringify(cov?.operations)).toBe(true);
    for (const check of [
      'not_a_server_error',
      'response_schema_conformance',
      'jsonrpc_error_codes',
      'negative_data_rejection',
      'positive_data_acceptance',
    ]) {
      const t = tally(result, check);
      expect(
        t?.failures.map((f) => f.message),
        check,
      ).toEqual([]);
      expect(t?.passed, check).toBeGreaterThan(0);
    }
  });

  it('negotiates X25519MLKEM768 on every origin: base (rpc) and site under chain, wallet under wallet', () => {
    const tls = (surface: string) =>
      result.tallies.find((x) => x.surface === surface && x.check === 'tls_hybrid_group');
    expect(tls('chain')).toMatchObject({ passed: 2, failed: 0, skipped: 0 });
    expect(tls('wallet')).toMatchObject({ passed: 1, failed: 0, skipped: 0 });
  });
});
