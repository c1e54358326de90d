// D-139: CHAIN_RPC_URL may carry credentials (`https://user:pass@…`, a key in the path or query). Its secret
// parts reach no /rpc answer, no stored record and no webhook body, and the server log names the node
// only by scheme, host and port. The stack runs with its real log on stderr, captured here, against a real
// Anvil behind a stand-in (node-proxy.ts) that is switched to refuse connections once the accounts exist.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../conformance/checks/chain/support.ts';
import { apiKey, inst, newAccount } from '../../conformance/checks/institutional/support.ts';
import { deliveriesOf, parseBody, registerEndpoint } from '../../conformance/checks/webhooks/support.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { redactedNodeUrl } from '../../src/node/upstream.ts';
import { payments, transfers } from '../../src/storage/schema.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';
import { startNodeProxy, type NodeProxy } from './node-proxy.ts';

// Not a plain word: the log's route templates hold words such as `secret` (/admin/v1/webhooks/endpoints/:id/secret, D-270).
const SECRET = 'n0de-cred3ntial-7f3a';
const logged: string[] = [];
let stack: TestStack;
let target: Target;
let proxy: NodeProxy;

beforeAll(async () => {
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write);
  proxy = await startNodeProxy();
  stack = await startTestStack({
    env: {
      ...LIFTED_LIMITS,
      SVC_WEBHOOK_CA_FILE: (await receiverTls()).caCertPath,
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      CHAIN_RPC_URL: proxy.url({ userinfo: `u:${SECRET}`, path: `/v3/${SECRET}?apikey=${SECRET}` }),
    },
    logLevel: 'info',
  });
  target = remoteTarget({
    base: stack.ready.base,
    caCert: stack.stack.tls.caCert,
    adminToken: stack.ready.adminToken!,
  });
}, 60_000);
afterAll(async () => {
  await target?.close?.();
  await stack?.close();
  await proxy?.close();
  vi.restoreAllMocks();
});

describe('the chain node URL (D-139)', () => {
  it('is redacted to scheme, host and port', () => {
    expect(redactedNodeUrl('https://user:pass@node.example:8545/v3/key?apikey=k')).toBe('https://node.example:8545/…');
    expect(redactedNodeUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
  });

  it('reaches no /rpc answer, no stored record, no webhook body, and the log only redacted', {
    timeout: 60_000,
  }, async () => {
    const [debtor, creditor] = [await newAccount(target), await newAccount(target)];
    const endpoint = await registerEndpoint(target, { accountIds: [debtor.id, creditor.id] });
    const key = { bearer: await apiKey(target, ['accounts:read', 'transfers:read', 'transfers:write']) };
    // From here on every chain call fails in transport: the port refuses connections.
    await proxy.setMode({ kind: 'refuse' });
    const rpc = await call(target, 'eth_blockNumber');
    expect(rpc.error?.code).toBe(-32002); // ResourceUnavailable: the node was really asked
    expect(rpc.http.text).not.toContain(SECRET);
    const batch = await call(target, 'eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']);
    expect(batch.http.text).not.toContain(SECRET);

    const sent = await inst(target, 'POST', '/transfers', key, {
      body: { fromAccountId: debtor.id, to: creditor.address, amount: '1.00' },
    });
    expect(sent.status).toBe(201);
    expect(sent.json).toMatchObject({ status: 'failed' });
    expect(sent.text).not.toContain(SECRET);
    const { txRef } = sent.json as { txRef: string };
    const read = await inst(target, 'GET', `/transfers/${txRef}`, key);
    expect(read.text).not.toContain(SECRET);
    // A read that needs the node answers 503 and logs the failure (with the node named, redacted).
    const account = await inst(target, 'GET', `/accounts/${debtor.id}`, key);
    expect(account.status).toBe(503);
    expect(account.text).not.toContain(SECRET);

    // The endpoint is this test's own: its only payment.failed is this transfer's.
    const [failed] = await deliveriesOf(
      endpoint,
      (p) => p.event === 'payment.failed',
      (r) => r.length > 0,
    );
    expect(parseBody(failed!)).toMatchObject({
      status: 'FAILED',
      failRsn: expect.stringContaining('broadcast failed'),
    });
    expect(failed!.rawBody).not.toContain(SECRET);

    const stored = JSON.stringify([
      ...(await stack.stack.database.db.select().from(transfers)),
      ...(await stack.stack.database.db.select().from(payments)),
    ]);
    expect(stored).toContain('broadcast failed');
    expect(stored).not.toContain(SECRET);

    const log = logged.join('');
    expect(log).toContain(`${proxy.url()}/…`);
    expect(log).not.toContain(SECRET);
  });
});
