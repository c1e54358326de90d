// D-140: only a definite refusal of the broadcast is the spec's "If the broadcast fails the record is marked
// failed". A transport failure after the node may have taken the transaction (a reset, a time-out) leaves the
// transfer pending, and D-078's reconciliation settles it; every node call has a time-out (SVC_CHAIN_TIMEOUT_MS),
// so a hung node answers 503 and never holds an account's turn for ever. The stack runs on CHAIN_RPC_URL
// against a real Anvil behind a stand-in that misbehaves on demand (node-proxy.ts).
import { concat, padHex, size, stringToHex, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminJson,
  apiKey,
  codeOf,
  inst,
  newAccount,
  settled,
  weiOf,
  type AccountView,
  type Created,
} from '../../conformance/checks/institutional/support.ts';
import { deliveriesOf, parseBody, registerEndpoint, type Endpoint } from '../../conformance/checks/webhooks/support.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';
import { startNodeProxy, type NodeProxy } from './node-proxy.ts';

const TIMEOUT_MS = 1000;
let stack: TestStack;
let target: Target;
let proxy: NodeProxy;
let endpoint: Endpoint;
let owned: string[];
let key: { bearer: string };

beforeAll(async () => {
  proxy = await startNodeProxy();
  stack = await startTestStack({
    env: {
      ...LIFTED_LIMITS,
      SVC_WEBHOOK_CA_FILE: (await receiverTls()).caCertPath,
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      CHAIN_RPC_URL: proxy.url(),
      SVC_CHAIN_TIMEOUT_MS: String(TIMEOUT_MS),
    },
  });
  target = remoteTarget({
    base: stack.ready.base,
    caCert: stack.stack.tls.caCert,
    adminToken: stack.ready.adminToken!,
  });
  // D-142: the endpoint receives only its accounts' payments; funded() adds each debtor to it.
  const owner = await newAccount(target);
  owned = [owner.id];
  endpoint = await registerEndpoint(target, { accountIds: owned });
  key = { bearer: await apiKey(target, ['accounts:read', 'transfers:read', 'transfers:write']) };
}, 60_000);
afterAll(async () => {
  await target?.close?.();
  await stack?.close();
  await proxy?.close();
});

/** A funded approved account (funded on Anvil directly: the admin faucet is for the embedded chain only). */
async function funded(dailyLimit = 1_000_000): Promise<AccountView> {
  const account = await newAccount(target, { dailyLimit });
  await proxy.fund(account.address, weiOf('100'));
  owned.push(account.id);
  await adminJson(target, 'PATCH', `/webhooks/endpoints/${endpoint.id}`, { accountIds: owned }, 200);
  return account;
}

/** POST /transfers; fails the test, rather than hanging it, when no answer comes within 15 s. */
async function post(from: AccountView, to: AccountView, amount: string) {
  const answer = inst(target, 'POST', '/transfers', key, { body: { fromAccountId: from.id, to: to.address, amount } });
  const bound = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('POST /transfers gave no answer within 15 s')), 15_000).unref(),
  );
  return Promise.race([answer, bound]);
}

/** The payment events the endpoint received for `txHash`'s payment, once `event` is among them. */
async function eventsUntil(event: string, onChainTxHash: string): Promise<string[]> {
  const received = await deliveriesOf(
    endpoint,
    () => true,
    (all) => all.some((r) => parseBody(r).event === event && parseBody(r).onChainTxHash === onChainTxHash),
  );
  const uetr = received.map(parseBody).find((p) => p.event === event && p.onChainTxHash === onChainTxHash)!.uetr;
  return received
    .map(parseBody)
    .filter((p) => p.uetr === uetr)
    .map((p) => p.event as string);
}

describe('the outcome of a broadcast (D-140)', () => {
  it('a reset after the node took the transaction leaves it pending; it confirms, and the daily limit is charged', {
    timeout: 60_000,
  }, async () => {
    const [debtor, creditor] = [await funded(10), await newAccount(target)];
    await proxy.setMode({ kind: 'reset-after-forward', method: 'eth_sendRawTransaction' });
    const sent = await post(debtor, creditor, '6.00');
    await proxy.setMode({ kind: 'forward' });
    expect(sent.status).toBe(201);
    const created = sent.json as Created;
    expect(created).toMatchObject({ ok: true, status: 'pending' });
    expect((await settled(target, key, created.txRef)).status).toBe('confirmed');
    expect(await eventsUntil('payment.settled', created.txHash)).not.toContain('payment.failed');
    // 6.00 of the 10 a day is spent: another 6.00 is over the limit.
    const again = await post(debtor, creditor, '6.00');
    expect(again.status).toBe(400);
    expect(codeOf(again)).toBe('DAILY_LIMIT_EXCEEDED');
  });

  it('a node that answers a JSON-RPC error refuses it: the transfer is failed and the nonce serves the next one', {
    timeout: 60_000,
  }, async () => {
    const [debtor, creditor] = [await funded(), await newAccount(target)];
    await proxy.setMode({ kind: 'rpc-error', method: 'eth_sendRawTransaction' });
    const refused = await post(debtor, creditor, '1.00');
    await proxy.setMode({ kind: 'forward' });
    expect(refused.status).toBe(201);
    expect(refused.json).toMatchObject({ ok: false, status: 'failed' });
    const failedEvents = await deliveriesOf(
      endpoint,
      (p) => p.event === 'payment.failed' && String(p.failRsn).includes('rejected by the stand-in'),
      (r) => r.length > 0,
    );
    expect(failedEvents).toHaveLength(1);
    const next = await post(debtor, creditor, '1.00');
    expect(next.json).toMatchObject({ status: 'pending' });
    expect((await settled(target, key, (next.json as Created).txRef)).status).toBe('confirmed');
  });

  it('a hung node answers 503 in bounded time, and the account is not blocked for ever', {
    timeout: 60_000,
  }, async () => {
    const [debtor, creditor] = [await funded(), await newAccount(target)];
    await proxy.setMode({ kind: 'hang' });
    const hung = await post(debtor, creditor, '1.00');
    expect(hung.status).toBe(503);
    expect(codeOf(hung)).toBe('CHAIN_UNAVAILABLE');

    // Only the broadcast hangs: the transfer is stored, its outcome unknown, so it stays pending.
    await proxy.setMode({ kind: 'hang', method: 'eth_sendRawTransaction' });
    const unsure = await post(debtor, creditor, '2.00');
    expect(unsure.status).toBe(201);
    expect(unsure.json).toMatchObject({ status: 'pending' });
    // The node never got it: the next transfer of the account is answered, and the reconciliation sends the
    // first one again, so both confirm.
    await proxy.setMode({ kind: 'forward' });
    const next = await post(debtor, creditor, '3.00');
    expect(next.status).toBe(201);
    expect((await settled(target, key, (unsure.json as Created).txRef)).status).toBe('confirmed');
    expect((await settled(target, key, (next.json as Created).txRef)).status).toBe('confirmed');
  });
});

/**
 * Runtime code of a contract whose every call reverts with Error(`reason`): it copies the ABI-encoded
 * revert data that follows it in the code to memory and reverts with it (12 bytes of code, then the data).
 */
function revertingContract(reason: string): Hex {
  const data = concat([
    '0x08c379a0',
    padHex(toHex(32)),
    padHex(toHex(reason.length)),
    padHex(stringToHex(reason), { dir: 'right' }),
  ]);
  const n = toHex(size(data), { size: 1 });
  const runtime = concat([`0x60${n.slice(2)}600c600039`, `0x60${n.slice(2)}6000fd`, data]); // CODECOPY(0, 12, n); REVERT(0, n)
  return runtime;
}

describe('a transfer to a contract that reverts on receive (D-141)', () => {
  it("answers 400 TRANSFER_REVERTED with the node's reason, and stores nothing", { timeout: 60_000 }, async () => {
    const debtor = await funded();
    // The contract's runtime code is installed on the node directly (it has no development accounts to deploy from, D-151).
    const contract = privateKeyToAccount(generatePrivateKey()).address;
    await proxy.anvil('anvil_setCode', [contract, revertingContract('no deposits here')]);
    const listed = () => inst(target, 'GET', `/transfers?accountId=${debtor.id}`, key);
    const before = await listed();
    expect(before.status).toBe(200);
    const res = await inst(target, 'POST', '/transfers', key, {
      body: { fromAccountId: debtor.id, to: contract, amount: '1.00' },
    });
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe('TRANSFER_REVERTED');
    expect((res.json as { error: string }).error).toContain('no deposits here');
    const after = await listed();
    expect(after.status).toBe(200);
    expect((after.json as { total: number }).total).toBe((before.json as { total: number }).total);
  });
});
