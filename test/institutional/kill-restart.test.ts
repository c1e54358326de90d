// Crash recovery with a real crash (nothing is lost or duplicated when the server is killed mid-transfer
// and restarted; D-078). `svckit serve` runs as its own process on a persisted data directory; while a
// stream of transfers is in flight it is killed with SIGKILL (no shutdown code runs), then started again on
// the same directory. The in-process check (institutional.transfer.crash_recovery) aims at the exact window between
// the stored record and its broadcast; this one lets the kill land wherever the load is, and checks the
// invariants afterwards against the chain. PGlite under `npm test`, PostgreSQL under `npm run test:postgres`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { rpcBatch, rpcResult } from '../../conformance/checks/explorer/support.ts';
import { apiKey, inst, newAccount, weiOf, type TransferView } from '../../conformance/checks/institutional/support.ts';
import { freshDatabase } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { LIFTED_LIMITS, TEST_STACK_ENV } from '../support/stack.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-kill-'));
const postgres = await freshDatabase(process.env.DATABASE_URL);
const running = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of running) child.kill('SIGTERM');
  await Promise.all([...running].map((child) => new Promise((resolve) => child.once('exit', resolve))));
  await postgres?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Ready = { base: string; caCert: string; adminToken?: string };

/** `svckit serve` on the data directory (instant mining, limits lifted, warnings only); resolves at its ready line. */
async function serve(): Promise<{ child: ChildProcess; ready: Ready }> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SVC_DATA_DIR: dataDir,
    ...TEST_STACK_ENV,
    ...LIFTED_LIMITS,
    SVC_LOG_LEVEL: 'warn',
    SVC_EVIDENCE_AT_START: 'false', // D-153: not what this test is about; the build would only take CPU from it
  };
  delete env.DATABASE_URL;
  if (postgres) env.DATABASE_URL = postgres.url;
  const child = spawn(process.execPath, [path.resolve('bin/svckit.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let ready: Ready | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    const event = parseLine(line);
    if (event?.event === 'ready') {
      ready = event;
      break;
    }
  }
  if (!ready) throw new Error('svckit serve exited before it was ready');
  child.stdout!.resume(); // leaving the loop paused the stream: keep draining it
  return { child, ready };
}

/** A JSON line of the server's stdout, or undefined for any other line. */
function parseLine(line: string): ({ event?: string } & Ready) | undefined {
  try {
    return JSON.parse(line) as { event?: string } & Ready;
  } catch {
    return undefined;
  }
}

/** The running server as a target; its ready line names the CA certificate's file. */
const targetOf = (ready: Ready, adminToken: string): Target =>
  remoteTarget({ base: ready.base, caCert: readFileSync(ready.caCert, 'utf8'), adminToken });

/** Reads every transfer of `accountId` every 50 ms until none is pending; fails if one still is after 30 s. */
async function settledTransfers(target: Target, key: { bearer: string }, accountId: string): Promise<TransferView[]> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const page = await inst(target, 'GET', `/transfers?accountId=${accountId}&limit=200`, key);
    expect(page.status).toBe(200);
    const transfers = (page.json as { transfers: TransferView[] }).transfers;
    const pending = transfers.filter((t) => t.status === 'pending').map((t) => t.txRef);
    if (pending.length === 0) return transfers;
    if (performance.now() > deadline)
      throw new Error(
        `${pending.length} transfers of ${accountId} were still pending after 30 s: ${pending.join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The chain agrees with the confirmed records of `sender`: each is one mined transaction from it; the account
 * sent exactly those, with nonces 0..n-1 (no gap, no duplicate); its balance fell by exactly their sum.
 */
async function expectChainAgrees(target: Target, sender: { address: Hex }, confirmed: TransferView[], funded: bigint) {
  const mined = await rpcBatch<{ nonce: Hex; from: Hex; blockNumber: Hex | null } | null>(
    target,
    confirmed.map((t) => ({ method: 'eth_getTransactionByHash', params: [t.txHash] })),
  );
  expect(mined.every((tx) => tx?.blockNumber && tx.from.toLowerCase() === sender.address.toLowerCase())).toBe(true);
  expect(mined.map((tx) => Number(BigInt(tx!.nonce))).sort((a, b) => a - b)).toEqual(confirmed.map((_, i) => i));
  expect(Number(BigInt(await rpcResult<Hex>(target, 'eth_getTransactionCount', [sender.address, 'latest'])))).toBe(
    confirmed.length,
  );
  const spent = confirmed.reduce((sum, t) => sum + weiOf(t.amount), 0n);
  expect(BigInt(await rpcResult<Hex>(target, 'eth_getBalance', [sender.address, 'latest']))).toBe(funded - spent);
  return spent;
}

const SENDERS = 4;
const PER_SENDER_CONCURRENCY = 2;
const KILL_AFTER = 40;

describe('svckit serve killed with SIGKILL during transfers', () => {
  it('loses and duplicates nothing: every acknowledged transfer is kept and settles, and the chain agrees', {
    timeout: 180_000,
  }, async () => {
    const first = await serve();
    const adminToken = first.ready.adminToken!;
    let target = targetOf(first.ready, adminToken);
    const senders = await Promise.all(Array.from({ length: SENDERS }, () => newAccount(target, { fund: '1000' })));
    const recipient = await newAccount(target);
    const key = {
      bearer: await apiKey(
        target,
        ['transfers:write', 'transfers:read'],
        senders.map((s) => s.id),
      ),
    };

    // Several accounts at once, so that several transfers sit between their stored record and their
    // broadcast when the kill comes (one account's transfers take turns there).
    const acknowledged: string[] = [];
    let cut = 0;
    let killed = false;
    const died = new Promise((resolve) => first.child.once('exit', resolve));
    const send = async (sender: { id: string }, i: number) => {
      const amount = `0.${String((i % 99) + 1).padStart(2, '0')}`;
      try {
        const res = await inst(target, 'POST', '/transfers', key, {
          body: { fromAccountId: sender.id, to: recipient.address, amount },
        });
        if (res.status !== 201) throw new Error(`a transfer answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
        acknowledged.push((res.json as { txRef: string }).txRef);
        if (acknowledged.length === KILL_AFTER && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      } catch (error) {
        if (!killed) throw error;
        cut++;
      }
    };
    await Promise.all(
      senders.flatMap((sender) =>
        Array.from({ length: PER_SENDER_CONCURRENCY }, async () => {
          for (let i = 0; !killed && i < 100; i++) await send(sender, i);
        }),
      ),
    );
    await died;
    expect(killed).toBe(true);

    const second = await serve();
    target = targetOf(second.ready, adminToken);
    let stored = 0;
    let confirmedCount = 0;
    let received = 0n;
    const seen = new Set<string>();
    for (const sender of senders) {
      const transfers = await settledTransfers(target, key, sender.id);
      for (const t of transfers) {
        expect(seen.has(t.txRef)).toBe(false); // no record twice
        seen.add(t.txRef);
      }
      expect(transfers.filter((t) => t.status === 'pending')).toEqual([]);
      const confirmed = transfers.filter((t) => t.status === 'confirmed');
      received += await expectChainAgrees(target, sender, confirmed, weiOf('1000'));
      stored += transfers.length;
      confirmedCount += confirmed.length;
    }
    expect([...seen]).toEqual(expect.arrayContaining(acknowledged)); // nothing acknowledged is lost
    expect(confirmedCount).toBeGreaterThanOrEqual(acknowledged.length);
    expect(BigInt(await rpcResult<Hex>(target, 'eth_getBalance', [recipient.address, 'latest']))).toBe(received);
    console.info(
      `kill-restart: ${acknowledged.length} acknowledged before the kill, ${cut} cut by it, ${stored} stored (${stored - acknowledged.length} of them cut), ${confirmedCount} confirmed, ${stored - confirmedCount} failed`,
    );
  });
});
