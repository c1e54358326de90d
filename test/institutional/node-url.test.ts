// D-139: CHAIN_RPC_URL may carry credentials (`https://user:pass@…`, a key in the path or query). Its secret
// parts reach no /rpc answer, no stored record and no webhook body, and the server log names the node
// only by scheme, host and port. The stack runs with its real log on stderr, captured here, against a real
// Anvil behind a stand-in (node-proxy.ts) that is switched to refuse connections once the accounts exist.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../conformance/checks/chain/support.ts';
import { apiKey, inst, newAccount } from '../../conformance/checks/institutional/support.ts';
import { deliveriesOf, parseBody, registerEndpoint } from '../../conformance/checks/webhooks/support.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { loadConfig } from '../../src/config.ts';
import { redactedNodeUrl } from '../../src/node/upstream.ts';
import { payments, transfers } from '../../src/storage/schema.ts';
import type { Stack } from '../../src/server/app.ts';
import { listen } from '../../src/server/main.ts';
import { startNodeProxy, type NodeProxy } from './node-proxy.ts';

const SECRET = 'secret';
const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-node-url-'));
const logged: string[] = [];
let stack: Stack;
let target: Target;
let proxy: NodeProxy;

beforeAll(async () => {
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write);
  proxy = await startNodeProxy();
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
    SVC_RATE_LIMIT_RPC: '0',
    SVC_RATE_LIMIT_ADMIN: '0',
    SVC_WEBHOOK_CA_FILE: (await receiverTls()).caCertPath,
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    CHAIN_RPC_URL: proxy.url({ userinfo: `u:${SECRET}`, path: `/v3/${SECRET}?apikey=${SECRET}` }),
  });
  const started = await listen(config, { logLevel: 'info' });
  stack = started.stack;
  target = remoteTarget({ base: started.ready.base, caCert: stack.tls.caCert, adminToken: started.ready.adminToken! });
}, 60_000);
afterAll(async () => {
  await target?.close?.();
  await stack?.close();
  await proxy?.close();
  vi.restoreAllMocks();
  rmSync(dataDir, { recursive: true, force: true });
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
      ...(await stack.database.db.select().from(transfers)),
      ...(await stack.database.db.select().from(payments)),
    ]);
    expect(stored).toContain('broadcast failed');
    expect(stored).not.toContain(SECRET);

    const log = logged.join('');
    expect(log).toContain(`${proxy.url()}/…`);
    expect(log).not.toContain(SECRET);
  });
});
