// A bare JSON-RPC node as the harness's target (`svckit conformance --rpc`, D-192): a real Anvil at chain
// 1111111 is tested directly. What Anvil lacks (qbft_*, net_peerCount, the contract's error messages) fails
// with the reason, the checks that send transactions are skipped without a funded key and run with
// `--rpc-sender-key` (D-193), and the key never appears in the output or the reports.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilBinary, freePort } from '../../src/node/anvil.ts';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { rpcTarget } from '../../conformance/targets/rpc.ts';

/** The first key of Anvil's published development mnemonic: funded on any fresh Anvil, so only for a test node. */
const ANVIL_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let anvil: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  // Gas price 0 as the spec fixes it, so the harness's zero-price transactions are accepted.
  anvil = spawn(
    anvilBinary(),
    [
      ...['--chain-id', '1111111', '--host', '127.0.0.1', '--port', String(port)],
      ...['--gas-price', '0', '--base-fee', '0', '--disable-min-priority-fee'],
    ],
    { stdio: 'ignore' },
  );
  url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const up = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    }).catch(() => undefined);
    if (up?.ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Anvil did not answer on ${url} within 10 s`);
}, 30_000);

afterAll(() => {
  anvil?.kill('SIGTERM');
});

type Result = { id: string; status: string; reason?: string };

/** Runs `svckit conformance --rpc <anvil> --only chain` and returns the JSON report's results by id. */
function runHarness(...extra: string[]): {
  byId: Map<string, Result>;
  output: string;
  report: string;
  status: number | null;
} {
  const out = mkdtempSync(path.join(tmpdir(), 'svckit-rpc-target-'));
  const run = spawnSync(
    process.execPath,
    [SVCKIT_BIN, 'conformance', '--rpc', url, '--only', 'chain', '--report', 'json', '--out', out, '--quiet', ...extra],
    { encoding: 'utf8', timeout: 180_000 },
  );
  const report = readFileSync(path.join(out, 'conformance.json'), 'utf8');
  const results = (JSON.parse(report) as { checks: Result[] }).checks;
  return { byId: new Map(results.map((r) => [r.id, r])), output: run.stdout + run.stderr, report, status: run.status };
}

describe('a bare JSON-RPC node as the target (--rpc)', { timeout: 240_000 }, () => {
  it('runs the chain checks against Anvil: its values pass, what it lacks fails with the reason, sending is skipped', () => {
    const { byId, status } = runHarness();
    const statusOf = (id: string) => byId.get(id)?.status;
    for (const id of [
      'chain.eth_chainid.value',
      'chain.net_version',
      'chain.gas_price_zero',
      'chain.web3_sha3.value',
      'chain.eth_syncing.caught_up',
      'chain.errors.method_not_found',
      'chain.lookups.unknown_null',
    ])
      expect(statusOf(id), id).toBe('passed');
    // Anvil has no qbft_ group and no net_peerCount: failed, naming the method and -32601.
    for (const id of ['chain.qbft.validators_by_number', 'chain.qbft.validators_by_hash']) {
      expect(statusOf(id), id).toBe('failed');
      expect(byId.get(id)?.reason).toMatch(/qbft_getValidatorsByBlock(Number|Hash).*-32601 Method not found/);
    }
    expect(statusOf('chain.methods.schemas')).toBe('failed');
    expect(byId.get('chain.methods.schemas')?.reason).toMatch(/net_peerCount\(\[\]\) failed: .*-32601/);
    expect(byId.get('chain.methods.schemas')?.reason).toContain('qbft_getPendingVotes');
    // One line names every method of the contract the node lacks, the Besu ones Anvil has not among them (D-253).
    expect(byId.get('chain.methods.schemas')?.reason).toMatch(
      /^the node lacks \d+ methods of the contract: [^;]*\beth_mining\b[^;]*\bnet_enode\b[^;]*\btxpool_contentFrom\b/,
    );
    // Sending needs a funded, allow-listed sender: skipped with the reason, never passed.
    expect(statusOf('chain.methods.schemas_with_transactions')).toBe('skipped');
    expect(byId.get('chain.methods.schemas_with_transactions')?.reason).toContain('--rpc-sender-key');
    expect(statusOf('chain.qbft.votes')).toBe('skipped');
    expect(byId.get('chain.qbft.votes')?.reason).toContain("'admin'");
    expect(status).toBe(1);
  });

  it('uses the funded key of --rpc-sender-key for the checks that send, and never prints it', () => {
    const { byId, output, report } = runHarness('--rpc-sender-key', `0x${ANVIL_KEY}`);
    // With the key it deploys the test contract, calls it and validates every lookup on what it wrote.
    const sending = byId.get('chain.methods.schemas_with_transactions');
    expect(sending?.status, sending?.reason).toBe('passed');
    expect(output).not.toContain(ANVIL_KEY);
    expect(report).not.toContain(ANVIL_KEY);
  });

  it('refuses plain http beyond loopback, a key that is not 32 bytes of hex, and a key without --rpc', () => {
    expect(() => rpcTarget({ url: 'http://node.example:8545' })).toThrow(
      /"rpc" expected an https URL, or http for a loopback node/,
    );
    expect(rpcTarget({ url: 'http://[::1]:8545' }).rpc?.href).toBe('http://[::1]:8545/');
    expect(() => rpcTarget({ url: 'https://node.example', senderKey: '0x1234' })).toThrow(
      /"rpc-sender-key" expected 32 bytes of hex \(64 digits, optional 0x\), got 4 characters/,
    );
    const alone = spawnSync(process.execPath, [SVCKIT_BIN, 'conformance', '--rpc-sender-key', ANVIL_KEY], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('"--rpc-sender-key" needs "--rpc"');
    expect(alone.stderr).not.toContain(ANVIL_KEY);
  });
});
