// The mocks target: the generated MSW mocks behind a validating HTTPS service. A conforming request gets the
// contract's example; one the contract refuses gets the documented error status in the surface's error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../conformance/http.ts';
import { MOCK_CREDENTIAL } from '../../conformance/mocks/server.ts';
import { mocksTarget } from '../../conformance/targets/mocks.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { exampleResponses as explorer } from '../../mocks/explorer.gen.ts';
import { exampleResponses as institutional } from '../../mocks/institutional.gen.ts';

let target: Target;
beforeAll(async () => {
  target = await mocksTarget();
}, 60_000);
afterAll(() => target?.close?.());

const bearer = { authorization: MOCK_CREDENTIAL };
const account = 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA';

describe('the mocks target', () => {
  it('answers a conforming request with the contract example', async () => {
    const res = await request(target, `/wallet/api/v1/accounts/${account}`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(institutional.institutionalGetAccount.body);
    const stats = await request(target, '/api/stats');
    expect(stats.status).toBe(200);
    expect(stats.json).toEqual(explorer.explorerGetStats.body);
  });

  it('refuses a request without the credentials the operation requires with 401 in the error shape', async () => {
    const res = await request(target, `/wallet/api/v1/accounts/${account}`);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: expect.stringContaining('Authorization'), code: expect.any(String) });
    const wrong = await request(target, `/wallet/api/v1/accounts/${account}`, {
      headers: { authorization: 'Bearer svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses a parameter outside its schema with the documented 400', async () => {
    const res = await request(target, '/wallet/api/v1/accounts?limit=500', { headers: bearer });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: expect.stringContaining('limit') });
    const id = await request(target, '/wallet/api/v1/accounts/42', { headers: bearer });
    expect(id.status).toBe(400);
    const block = await request(target, '/api/block/0x12');
    expect(block.status).toBe(400);
  });

  it('refuses a body that breaks the schema, and accepts the one that keeps it', async () => {
    const good = { fromAccountId: account, to: '0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2', amount: '125.50' };
    const ok = await request(target, '/wallet/api/v1/transfers', { method: 'POST', headers: bearer, body: good });
    expect(ok.status).toBe(201);
    const extra = await request(target, '/wallet/api/v1/transfers', {
      method: 'POST',
      headers: bearer,
      body: { ...good, surprise: 1 },
    });
    expect(extra.status).toBe(400);
    const missing = await request(target, '/wallet/api/v1/transfers', {
      method: 'POST',
      headers: bearer,
      body: { to: good.to, amount: good.amount },
    });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ error: expect.stringContaining('fromAccountId') });
  });

  it('answers 405 for a method the path does not document and 404 for an unknown path', async () => {
    const method = await request(target, '/api/stats', { method: 'DELETE' });
    expect(method.status).toBe(405);
    expect(method.json).toMatchObject({ error: expect.any(String) });
    const unknown = await request(target, '/api/nothing-here');
    expect(unknown.status).toBe(404);
  });

  it('serves the wallet session API on its own origin', async () => {
    const fees = await request(target, new URL('/fees/config', target.wallet));
    expect(fees.status).toBe(200);
    const history = await request(target, new URL('/history', target.wallet));
    expect(history.status).toBe(401);
  });
});
