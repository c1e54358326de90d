// D-199: eth_call and eth_estimateGas run with at most SVC_RPC_GAS_CAP gas, also when the request names none;
// D-200: at most SVC_RPC_SIMULATE_PER_IP of them in flight per client IP, one more answered -32005;
// D-202: /rpc takes application/json only (charset=utf-8 allowed), anything else is -32600 inside HTTP 415.
// D-203: calls at the head run on a follower of the sealing node, with its newest sealed block.
// Real Anvil behind the real gateway over TLS; the worst case is the BLAKE2F precompile (0x09), one gas a round.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../src/server/chain/simulation-limits.ts';
import { blake2f, INTRINSIC } from './blake2f.ts';
import { call, type Gateway, type RpcAnswer, startGateway } from './support.ts';

const CAP = DEFAULT_SIMULATION.gasCap;

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
}, 60_000);
afterAll(async () => gateway?.close());

describe('the gas cap of simulated calls (D-199)', () => {
  it('runs a call within the cap', async () => {
    const answer = await call(gateway.rpc, 'eth_call', [blake2f(CAP - INTRINSIC), 'latest']);
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatch(/^0x[0-9a-f]{128}$/);
  });

  it('caps a call that names no gas: it runs out of gas instead of using the block gas limit', async () => {
    // Without the cap the node runs this with the block gas limit (30,000,000) and answers a result.
    const answer = await call(gateway.rpc, 'eth_call', [blake2f(29_000_000), 'latest']);
    expect(answer.error, JSON.stringify(answer)).toBeDefined();
    expect(answer.result).toBeUndefined();
  });

  it('caps a call and an estimate that name more gas than the cap', async () => {
    const over = blake2f(CAP + 1, 30_000_000);
    const [callAnswer, estimate] = await Promise.all([
      call(gateway.rpc, 'eth_call', [over, 'latest']),
      call(gateway.rpc, 'eth_estimateGas', [over]),
    ]);
    expect(callAnswer.error, JSON.stringify(callAnswer)).toBeDefined();
    expect(estimate.error, JSON.stringify(estimate)).toBeDefined();
  });

  it('estimates a call within the cap', async () => {
    const answer = await call(gateway.rpc, 'eth_estimateGas', [blake2f(CAP - INTRINSIC)]);
    expect(answer.error).toBeUndefined();
    expect(Number(BigInt(answer.result as string))).toBeLessThanOrEqual(CAP);
  });
});

describe('the simulation node (D-203)', () => {
  it('answers at the head with the state of the newest sealed block', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const call42 = () => call(gateway.rpc, 'eth_call', [{ to: address, data: '0x' }, 'latest']);
    expect((await call42()).result).toBe('0x');
    // Code that returns the word 42, set on the sealing node and sealed: the node that simulates follows.
    await gateway.stack.chain.upstream.call('anvil_setCode', [address, '0x602a60005260206000f3']);
    await gateway.stack.chain.producer!.requestBlock();
    await expect.poll(async () => (await call42()).result, { timeout: 10_000 }).toBe(`0x${'2a'.padStart(64, '0')}`);
  });
});

describe('simulated calls in flight per client IP (D-200)', () => {
  it(`refuses one more than ${DEFAULT_SIMULATION.perClient} with -32005 and runs the others`, async () => {
    const count = DEFAULT_SIMULATION.perClient + 1;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'eth_estimateGas',
      params: [blake2f(CAP - INTRINSIC)],
    });
    const responses = await Promise.all(
      Array.from({ length: count }, async () => {
        const response = await fetch(gateway.rpc, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          answer: (await response.json()) as RpcAnswer,
        };
      }),
    );
    const refused = responses.filter((r) => r.answer.error?.code === -32005);
    expect(refused.length, JSON.stringify(responses)).toBeGreaterThanOrEqual(1);
    // D-024: a limit is -32005 inside an HTTP 429 with Retry-After, the request's id kept.
    expect(refused[0]).toMatchObject({
      status: 429,
      retryAfter: '1',
      answer: { id: 7, error: { message: 'limit exceeded' } },
    });
    expect(responses.filter((r) => r.status === 200 && r.answer.result !== undefined).length).toBeGreaterThanOrEqual(1);
  });
});

/** POSTs `body` to /rpc with `contentType` (none when undefined); the status and the parsed answer. */
async function postAs(contentType: string | undefined, body: string) {
  const response = await fetch(gateway.rpc, {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  });
  return { status: response.status, answer: (await response.json()) as RpcAnswer };
}

describe('the content type of /rpc (D-202)', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

  it.each([
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/jsonx',
  ])('answers 415 with a JSON-RPC error object to %s', async (type) => {
    const { status, answer } = await postAs(type, body);
    expect(status).toBe(415);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
  });

  it('answers 415 to a body without a Content-Type', async () => {
    // fetch labels a string body text/plain; an empty Blob goes without the header.
    const response = await fetch(gateway.rpc, { method: 'POST', body: new Blob([body]) });
    expect(response.status).toBe(415);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"'])(
    'answers %s',
    async (type) => {
      const { status, answer } = await postAs(type, body);
      expect(status).toBe(200);
      expect(answer.result).toBe('0x10f447');
    },
  );
});
