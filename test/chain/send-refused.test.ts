// chain.methods.schemas_with_transactions on a bare node with a funded key (D-192, D-193): a real Anvil behind a
// stand-in (test/institutional/node-proxy.ts). It passes while the stand-in forwards; when the node refuses
// every eth_sendRawTransaction at once, the check reports the node's JSON-RPC error, not a receipt that never came.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { chainMethodChecks } from '../../conformance/checks/chain/methods.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { rpcTarget } from '../../conformance/targets/rpc.ts';
import { startNodeProxy, type NodeProxy } from '../institutional/node-proxy.ts';

const CHECK = 'chain.methods.schemas_with_transactions';

let proxy: NodeProxy;
let key: `0x${string}`;
beforeAll(async () => {
  proxy = await startNodeProxy();
  key = generatePrivateKey();
  await proxy.fund(privateKeyToAccount(key).address, 10n ** 18n);
});
afterAll(async () => {
  await proxy?.close();
});

async function run(): Promise<CheckResult> {
  const catalogue = new Catalogue();
  for (const check of chainMethodChecks().filter((c) => c.id === CHECK)) catalogue.register(check);
  return (await runChecks(catalogue, rpcTarget({ url: proxy.url(), senderKey: key })))[0]!;
}

describe(CHECK, () => {
  it('passes on a node that takes the transactions', async () => {
    const result = await run();
    expect(result.status, result.reason).toBe('passed');
  });

  it("reports the node's refusal of the send, at once", async () => {
    await proxy.setMode({ kind: 'rpc-error', method: 'eth_sendRawTransaction' });
    const started = Date.now();
    const result = await run();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([result.status, result.reason]).toEqual([
      'failed',
      expect.stringMatching(
        /^the node refused eth_sendRawTransaction of the deployment 0x[0-9a-f]{64}: JSON-RPC error -32003 "transaction rejected by the stand-in"$/,
      ),
    ]);
  });
});
