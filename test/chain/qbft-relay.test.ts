// Against a real QBFT upstream (Besu), qbft_* calls are relayed to the configured validator RPC URLs
// instead of emulated. Besu cannot run here, so the validator is a stand-in JSON-RPC
// server (outside the project, as the house rules allow); the node is a standalone Anvil via CHAIN_RPC_URL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, rpc } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { startAnvil, type AnvilNode } from '../../src/node/anvil.ts';

const VALIDATORS = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222'];
const seen: { method: string; params: unknown[] }[] = [];
const validator = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c));
  req.on('end', () => {
    const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
    seen.push({ method: call.method, params: call.params });
    const result = call.method === 'qbft_getPendingVotes' ? { [VALIDATORS[1]!]: false } : VALIDATORS;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
  });
});

let anvil: AnvilNode | undefined;
let target: Target;
beforeAll(async () => {
  await new Promise<void>((resolve) => validator.listen(0, '127.0.0.1', resolve));
  anvil = await startAnvil();
  const validatorUrl = `http://127.0.0.1:${(validator.address() as AddressInfo).port}`;
  target = await referenceTarget({ env: { CHAIN_RPC_URL: anvil.url, QBFT_VALIDATOR_RPC_URLS: validatorUrl } });
});
afterAll(async () => {
  await target?.close?.();
  await anvil?.stop();
  validator.close();
});

describe('qbft_* on a real QBFT upstream', () => {
  it('relays qbft_* to the configured validator RPC and answers with its result', async () => {
    const byNumber = await rpc(target, 'qbft_getValidatorsByBlockNumber', ['latest']);
    expect(byNumber.json).toMatchObject({ result: VALIDATORS });
    const votes = await rpc(target, 'qbft_getPendingVotes');
    expect(votes.json).toMatchObject({ result: { [VALIDATORS[1]!]: false } });
    expect(seen.map((s) => s.method)).toEqual(['qbft_getValidatorsByBlockNumber', 'qbft_getPendingVotes']);
    expect(seen[0]!.params).toEqual(['latest']);
  });

  it('still validates params before relaying', async () => {
    const before = seen.length;
    const bad = await rpc(target, 'qbft_getValidatorsByBlockNumber', ['yesterday']);
    expect(bad.json).toMatchObject({ error: { code: -32602 } });
    expect(seen).toHaveLength(before);
  });

  it('does not emulate votes through the admin console on an external chain', async () => {
    const vote = await request(target, 'admin/v1/qbft/votes', {
      body: { validator: VALIDATORS[0], add: false },
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    expect(vote.status).toBe(409);
    expect(vote.json).toMatchObject({ code: 'EXTERNAL_CHAIN' });
  });
});
