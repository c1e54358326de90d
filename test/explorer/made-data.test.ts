// D-241: the explorer checks that look at a transaction make one when the chain has none and the run holds the
// administrator token, instead of being skipped. A fresh reference stack (no transaction yet) is tested as a
// deployment by URL: without the token the checks are skipped saying why; with it they make a transfer through
// the institutional API and pass, and the run's cleanup closes the accounts and removes the keys they made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { explorerChecks } from '../../conformance/checks/explorer/index.ts';
import { cleanUp, pendingCleanup } from '../../conformance/cleanup.ts';
import { request } from '../../conformance/http.ts';
import { runChecks } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';

const TX_CHECKS = ['explorer.tx.schema', 'explorer.tx.agrees_with_rpc'];
const TXNS_CHECK = 'explorer.txns.agrees_with_rpc';

let reference: Target;
let bare: Target;
let admin: Target;
beforeAll(async () => {
  reference = await referenceTarget();
  const where = { base: reference.base!.href, caCert: reference.caCert! };
  bare = remoteTarget(where);
  admin = remoteTarget({ ...where, adminToken: reference.adminToken! });
});
afterAll(async () => {
  await reference?.close?.();
});

async function run(target: Target, ids: string[]): Promise<string[]> {
  const catalogue = new Catalogue();
  for (const check of explorerChecks().filter((c) => ids.includes(c.id))) catalogue.register(check);
  return (await runChecks(catalogue, target)).map((r) => `${r.id}: ${r.status}: ${r.reason ?? ''}`);
}

/** The head block number, over the reference's JSON-RPC. */
async function head(): Promise<number> {
  const res = await request(reference, 'rpc', {
    body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
  });
  return Number(BigInt((res.json as { result: string }).result));
}

describe('explorer checks on a chain with no transaction', () => {
  it('are skipped without the administrator token, saying it would let them make one', async () => {
    expect(await head()).toBe(0);
    expect(await run(bare, [...TX_CHECKS, TXNS_CHECK])).toEqual([
      `${TXNS_CHECK}: skipped: /txns lists no transactions (none in the last 200 blocks, or a list up to 20 s old), and no administrator token to make one (D-241)`,
      'explorer.tx.schema: skipped: no transaction in the last 200 blocks to look up, and no administrator token to make one (D-241)',
      'explorer.tx.agrees_with_rpc: skipped: no transaction in the last 200 blocks to look up, and no administrator token to make one (D-241)',
    ]);
  });

  it('make a transfer to look at with the token, and pass', async () => {
    expect(await run(admin, TX_CHECKS)).toEqual(TX_CHECKS.map((id) => `${id}: passed: `));
    expect(
      pendingCleanup(admin)
        .map((c) => c.kind)
        .sort(),
    ).toEqual([...Array(4).fill('API key'), 'ML-DSA key', ...Array(3).fill('account')]);
  });

  it('make a transfer for /txns to list once the last 200 blocks hold none, and pass', async () => {
    for (const start = await head(); (await head()) < start + 200; ) await reference.reference!.mineBlock();
    reference.reference!.advanceClock(20_001); // the list the first test left in the 20 s cache expires
    const before = await head();
    expect(await run(admin, [TXNS_CHECK])).toEqual([`${TXNS_CHECK}: passed: `]);
    const listed = await request(reference, 'api/txns');
    expect((listed.json as { blockNumber: number }[]).map((t) => t.blockNumber > before)).toEqual([true]);
  });

  it('leave the accounts and keys for the cleanup to close and remove', async () => {
    const summary = await cleanUp(admin);
    expect(summary).toEqual({ undone: { 'API key': 4, 'ML-DSA key': 1, account: 3 }, failures: [] });
  });
});
