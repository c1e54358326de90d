// No published key moves money on the reference chain (D-151), and a client with its own key writes only
// once the administrator allow-listed it (D-050, D-152). Real stack: real Anvil, real TLS, the admin API
// and /rpc over HTTPS, a stock viem wallet client.
import { type BaseError, createPublicClient, createWalletClient, defineChain, http, parseEther, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { rpcResult } from '../../conformance/checks/explorer/support.ts';
import { call } from '../../conformance/checks/chain/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { accountBody, admin, expectContract } from '../admin/support.ts';
import { trustTestCa } from '../support/stack.ts';

/** Anvil's and Hardhat's documented development mnemonic: its keys are public. */
const PUBLISHED_MNEMONIC = 'test test test test test test test test test test test junk';
const published = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(PUBLISHED_MNEMONIC, { addressIndex: i }));
const A = 'admin.openapi.yaml';

let target: Target;
const chain = defineChain({
  id: 1111111,
  name: 'svckit reference',
  nativeCurrency: { name: 'Unit', symbol: 'SVC', decimals: 18 },
  rpcUrls: { default: { http: [] } },
});
const rpcUrl = () => new URL('rpc', target.base).href;
const balance = async (address: Hex) => BigInt(await rpcResult<Hex>(target, 'eth_getBalance', [address, 'latest']));
const listed = async () => {
  const res = await admin(target, 'GET', '/chain/accounts?limit=200');
  await expectContract(A, 'GET /chain/accounts', res, 200);
  return res.json as { fundingAddress: Hex; accounts: { address: Hex; reason: string }[] };
};

beforeAll(async () => {
  target = await sharedReferenceTarget();
  trustTestCa(target.caCert!);
});

describe('published development keys (D-151)', () => {
  it('a transaction signed with any of the ten published Anvil keys gets -32007 and changes no balance', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    for (const account of published) {
      const before = await balance(account.address);
      const signed = await account.signTransaction({
        type: 'legacy',
        chainId: 1111111,
        nonce: 0,
        to: recipient,
        value: parseEther('5000'),
        gas: 21_000n,
        gasPrice: 0n,
      });
      const answer = await call(target, 'eth_sendRawTransaction', [signed]);
      expect(answer.error?.code, `${account.address}: ${JSON.stringify(answer.error)}`).toBe(-32007);
      expect(await balance(account.address)).toBe(before);
    }
    expect(await balance(recipient)).toBe(0n);
    // None of them is funded, allow-listed or the funding account.
    const list = await listed();
    const addresses = new Set(published.map((a) => a.address.toLowerCase()));
    expect(addresses.has(list.fundingAddress.toLowerCase())).toBe(false);
    expect(list.accounts.filter((a) => addresses.has(a.address.toLowerCase()))).toEqual([]);
    for (const account of published) expect(await balance(account.address)).toBe(0n);
  });

  it('the gateway relays none of the node methods that sign with its own accounts or rewrite its state', async () => {
    const someone = published[1]!.address;
    const before = await balance(someone);
    const attempts: [string, unknown[]][] = [
      ['eth_sendTransaction', [{ from: someone, to: someone, value: '0x1' }]],
      ['eth_sign', [someone, '0x00']],
      ['eth_signTransaction', [{ from: someone, to: someone }]],
      ['eth_signTypedData_v4', [someone, '{}']],
      ['personal_sign', ['0x00', someone]],
      ['anvil_setBalance', [someone, '0xffffffffffffffffffff']],
      ['anvil_impersonateAccount', [someone]],
      ['hardhat_setBalance', [someone, '0xffffffffffffffffffff']],
      ['evm_mine', []],
    ];
    for (const [method, params] of attempts) {
      const answer = await call(target, method, params);
      expect(answer.result, method).toBeUndefined();
      expect([-32601, -32604], `${method}: ${JSON.stringify(answer.error)}`).toContain(answer.error?.code);
    }
    expect(await balance(someone)).toBe(before);
    // D-253: eth_accounts is answered by the gateway, never the node: no keys, whatever the node holds.
    expect((await call(target, 'eth_accounts', [])).result).toEqual([]);
  });
});

describe('a client with its own key (D-152)', () => {
  it('is refused until the administrator allow-lists and funds it, writes through the gateway, and is refused after DELETE', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ chain, transport: http(rpcUrl()), account });
    const reader = createPublicClient({ chain, transport: http(rpcUrl()), pollingInterval: 50 });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const send = () => wallet.sendTransaction({ to: recipient, value: parseEther('1'), gasPrice: 0n, gas: 21_000n });
    const refusedCode = (error: unknown) =>
      ((error as BaseError).walk((e) => (e as { code?: number }).code === -32007) as { code: number } | null)?.code;

    expect(refusedCode(await send().catch((e: unknown) => e))).toBe(-32007);

    const added = await admin(target, 'POST', '/chain/accounts', {
      address: account.address.toLowerCase(),
      amount: '5000.00',
    });
    await expectContract(A, 'POST /chain/accounts', added, 201);
    expect(added.json).toMatchObject({
      address: account.address,
      reason: 'external',
      amount: '5000.00',
      balance: '5000.00',
    });
    expect((await listed()).accounts).toContainEqual(
      expect.objectContaining({ address: account.address, reason: 'external' }),
    );

    const hash = await send();
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(await balance(recipient)).toBe(parseEther('1'));

    const removed = await admin(target, 'DELETE', `/chain/accounts/${account.address}`);
    await expectContract(A, 'DELETE /chain/accounts/{address}', removed, 204);
    expect(refusedCode(await send().catch((e: unknown) => e))).toBe(-32007);
    expect(await balance(recipient)).toBe(parseEther('1'));
    expect((await listed()).accounts.map((a) => a.address)).not.toContain(account.address);
  });

  it('closing a platform account takes its address off the allow-list', async () => {
    const created = await admin(target, 'POST', '/accounts', accountBody('closing@bank.example'));
    expect(created.status).toBe(201);
    const account = created.json as { id: string; address: Hex };
    expect((await listed()).accounts).toContainEqual(
      expect.objectContaining({ address: account.address, reason: 'account' }),
    );
    const closed = await admin(target, 'PATCH', `/accounts/${account.id}`, { status: 'closed' });
    expect(closed.status).toBe(200);
    expect((await listed()).accounts.map((a) => a.address)).not.toContain(account.address);
  });
});
