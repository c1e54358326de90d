// An address taken off the local chain's allow-list while POST /chain/accounts adds and funds it (D-220): the
// removal stands and the add answers 409 REVOKED naming the funding that was mined. The race is made
// deterministic by removing inside the faucet (real Anvil, real PGlite, the real DELETE over HTTPS).
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Faucet } from '../../src/server/admin/funding.ts';
import { openStack, type OpenStack } from './stack.ts';
import { admin, expectContract } from './support.ts';

const A = 'admin.openapi.yaml';
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

let open: OpenStack;
beforeAll(async () => {
  open = await openStack();
});
afterAll(async () => {
  await open?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The address's balance on the chain, in wei. */
const balance = async (address: Hex) =>
  BigInt(await open.stack.chain.upstream.call<Hex>('eth_getBalance', [address, 'latest']));

/** Whether the allow-list holds `address`. */
async function listed(address: string): Promise<boolean> {
  const page = (await admin(open.target, 'GET', '/chain/accounts?limit=200')).json as {
    accounts: { address: string }[];
  };
  return page.accounts.some((a) => a.address === address);
}

/** Makes the faucet take the address off the list (over the API) before or after it funds. */
function removeWhileFunding(when: 'before' | 'after') {
  const fund = Faucet.prototype.fund;
  const removals: number[] = [];
  vi.spyOn(Faucet.prototype, 'fund').mockImplementation(async function (this: Faucet, address, amountWei, options) {
    const remove = async () => removals.push((await admin(open.target, 'DELETE', `/chain/accounts/${address}`)).status);
    if (when === 'before') await remove();
    const funding = await fund.call(this, address, amountWei, options);
    if (when === 'after') await remove();
    return funding;
  });
  return removals;
}

describe('POST /chain/accounts racing DELETE /chain/accounts/{address} (D-220)', () => {
  it('a removal after the funding was mined stands; the add answers 409 REVOKED with the funding', async () => {
    const address = fresh();
    const removals = removeWhileFunding('after');
    const res = await admin(open.target, 'POST', '/chain/accounts', { address, amount: '7.00' });
    await expectContract(A, 'POST /chain/accounts', res, 409);
    expect(removals).toEqual([204]);
    const body = res.json as { error: string; code: string };
    expect(body.code).toBe('REVOKED');
    expect(body.error).toMatch(/was taken off the allow-list while this request added it/);
    expect(body.error).toMatch(/of 7\.00 \(0x[0-9a-f]{64}\) was mined and stays/);
    // The funding went out all the same, and the address stays off the list.
    expect(await balance(address)).toBe(700n * 10n ** 16n);
    expect(await listed(address)).toBe(false);
  });

  it('a removal before the funding was sent is not undone by the faucet; the add answers 409 REVOKED', async () => {
    const address = fresh();
    const removals = removeWhileFunding('before');
    const res = await admin(open.target, 'POST', '/chain/accounts', { address, amount: '2.00' });
    await expectContract(A, 'POST /chain/accounts', res, 409);
    expect(removals).toEqual([204]);
    expect(res.json).toMatchObject({ code: 'REVOKED' });
    expect(await listed(address)).toBe(false);
  });

  it('without a removal the add answers 201 and the address is listed', async () => {
    const address = fresh();
    const res = await admin(open.target, 'POST', '/chain/accounts', { address, amount: '1.00' });
    await expectContract(A, 'POST /chain/accounts', res, 201);
    expect(res.json).toMatchObject({ address, reason: 'external', amount: '1.00', balance: '1.00' });
    expect(await listed(address)).toBe(true);
  });
});
