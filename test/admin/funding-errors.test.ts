// Funding failures on the local chain (D-061, D-098, D-150) answer in the admin error shape `{error, code}`
// with a 4xx or 503, never a 500, over real HTTPS against a real Anvil.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBody, admin, expectContract } from './support.ts';
import { openStack, type OpenStack } from './stack.ts';

const A = 'admin.openapi.yaml';
let open: OpenStack;
beforeAll(async () => {
  open = await openStack();
});
afterAll(async () => {
  await open?.close();
});

const createAccount = async (email: string) => {
  const res = await admin(open.target, 'POST', '/accounts', accountBody(email));
  expect(res.status).toBe(201);
  return res.json as { id: string; address: string; balance: string };
};
const balanceOf = async (id: string) =>
  ((await admin(open.target, 'GET', `/accounts/${id}`)).json as { balance: string }).balance;

describe('funding failures (D-150)', () => {
  it('an amount the funding account cannot cover is a 400 INSUFFICIENT_BALANCE', async () => {
    const account = await createAccount('too-much@bank.example');
    const res = await admin(open.target, 'POST', `/accounts/${account.id}/fund`, { amount: '2000000000.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', res, 400);
    expect(res.json).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balanceOf(account.id)).toBe('0.00');
  });

  it('POST /chain/accounts with an amount the funding account cannot cover is a 400 and leaves the allow-list as it was (D-243)', async () => {
    const address = '0x07fb674A04Fa3806C306Ec96C648fF066396F03d';
    const listed = async () =>
      (
        (await admin(open.target, 'GET', '/chain/accounts?limit=100')).json as { accounts: { address: string }[] }
      ).accounts
        .map((a) => a.address.toLowerCase())
        .includes(address.toLowerCase());
    expect(await listed()).toBe(false);
    const res = await admin(open.target, 'POST', '/chain/accounts', { address, amount: '4401198734' });
    await expectContract(A, 'POST /chain/accounts', res, 400);
    expect(res.json).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await listed()).toBe(false);
    // An address already on the list stays on it when a funding of it fails.
    expect((await admin(open.target, 'POST', '/chain/accounts', { address })).status).toBe(201);
    expect((await admin(open.target, 'POST', '/chain/accounts', { address, amount: '4401198734' })).status).toBe(400);
    expect(await listed()).toBe(true);
  });

  it('a transaction the node refuses is a 503 FUNDING_REFUSED, and nothing is credited', async () => {
    const account = await createAccount('refused@bank.example');
    // The node now asks a base fee that a gas-price-0 transaction cannot pay: it refuses the funding.
    await open.stack.chain.upstream.call('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00']);
    try {
      const res = await admin(open.target, 'POST', `/accounts/${account.id}/fund`, { amount: '5.00' });
      await expectContract(A, 'POST /accounts/{id}/fund', res, 503);
      expect(res.json).toMatchObject({ code: 'FUNDING_REFUSED' });
      expect((res.json as { error: string }).error).not.toMatch(/https?:\/\//);
    } finally {
      await open.stack.chain.upstream.call('anvil_setNextBlockBaseFeePerGas', ['0x0']);
    }
    expect(await balanceOf(account.id)).toBe('0.00');
  });

  it('a funding the recipient reverts is a 409 FUNDING_REVERTED', async () => {
    const account = await createAccount('reverts@bank.example');
    // Code that reverts on every call (PUSH1 0 PUSH1 0 REVERT) at the account's address.
    await open.stack.chain.upstream.call('anvil_setCode', [account.address, '0x60006000fd']);
    const res = await admin(open.target, 'POST', `/accounts/${account.id}/fund`, { amount: '5.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', res, 409);
    expect(res.json).toMatchObject({ code: 'FUNDING_REVERTED' });
    expect(await balanceOf(account.id)).toBe('0.00');
  });

  it('with the chain node away it is a 503 whose error names no URL', async () => {
    const account = await createAccount('away@bank.example');
    await open.stack.chain.stop();
    const res = await admin(open.target, 'POST', `/accounts/${account.id}/fund`, { amount: '5.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', res, 503);
    const body = res.json as { error: string; code: string };
    expect(body.error).not.toMatch(/https?:\/\/|127\.0\.0\.1|localhost/);
  });
});
