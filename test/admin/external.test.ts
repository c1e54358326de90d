// The admin console on a stack that does not own its chain or its key-encryption key: funding is refused
// when CHAIN_RPC_URL is set (D-061) and rotation is refused when SVC_KEK supplies the KEK.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../conformance/targets/target.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { startAnvil, type AnvilNode } from '../../src/node/anvil.ts';
import { accountBody, admin, expectContract } from './support.ts';

let node: AnvilNode;
let target: Target;

beforeAll(async () => {
  // An "external" node: a plain Anvil the stack only connects to.
  node = await startAnvil();
  target = await referenceTarget({ env: { CHAIN_RPC_URL: node.url, SVC_KEK: randomBytes(32).toString('base64url') } });
});
afterAll(async () => {
  await target?.close?.();
  await node?.stop();
});

const A = 'admin.openapi.yaml';

describe('an external chain and an external KEK', () => {
  it('creates accounts but refuses funding with 409 FUNDING_UNAVAILABLE', async () => {
    const created = await admin(target, 'POST', '/accounts', accountBody('ext@bank.example'));
    await expectContract(A, 'POST /accounts', created, 201);
    const account = created.json as { id: string };
    const fund = await admin(target, 'POST', `/accounts/${account.id}/fund`, { amount: '10.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', fund, 409);
    expect(fund.json).toEqual({
      error: 'funding is only available on the local chain; CHAIN_RPC_URL is set',
      code: 'FUNDING_UNAVAILABLE',
    });
  });

  it('refuses to rotate a KEK supplied by SVC_KEK with a 409 saying so', async () => {
    const res = await admin(target, 'POST', '/kek/rotate');
    await expectContract(A, 'POST /kek/rotate', res, 409);
    expect(res.json).toMatchObject({ code: 'KEK_EXTERNAL' });
    expect((res.json as { error: string }).error).toContain('SVC_KEK');
  });
});
