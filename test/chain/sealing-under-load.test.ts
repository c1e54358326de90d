// D-203: block production and transfers keep going while unauthenticated clients run the costliest simulated
// calls /rpc allows. The spec's block period ("Block period | 2 seconds"), real Anvil, the real gateway over TLS,
// no /rpc rate limit (the attacker is as many clients as it likes; the gas cap and the in-flight bounds remain).
// The attack: 4 concurrent requests, then one a second for 20 s; each holds eth_estimateGas of BLAKE2F at the
// most rounds the gas cap allows, and the same with 29,000,000 rounds and no gas (what the block gas limit allows).
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  A_PERMISSIONS,
  apiKey,
  inst,
  newAccount,
  transferOf,
  type Created,
} from '../../conformance/checks/institutional/support.ts';
import { PROBE_LIMIT, request } from '../../conformance/http.ts';
import { withinRun } from '../../conformance/run-scope.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { DEFAULT_SIMULATION } from '../../src/server/chain/simulation-limits.ts';
import { blake2f, INTRINSIC } from './blake2f.ts';

const PERIOD_S = 2;
const WINDOW_S = 20;

let target: Target;
beforeAll(async () => {
  target = await referenceTarget({ env: { SVC_BLOCK_TIME: String(PERIOD_S), SVC_RATE_LIMIT_RPC: '0' } });
}, 60_000);
afterAll(async () => {
  await target?.close?.();
});

const rpcPost = (body: unknown) => request(target, 'rpc', { body, ...PROBE_LIMIT, timeoutMs: 60_000 });
const head = async () => {
  const res = await rpcPost({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' });
  const result = (res.json as { result?: unknown } | undefined)?.result;
  if (typeof result !== 'string') throw new Error(`eth_blockNumber answered ${res.status}: ${res.text.slice(0, 200)}`);
  return Number(BigInt(result));
};

/** One attacking request: the worst case at the cap, and the worst case the block gas limit would allow. */
const attack = () =>
  rpcPost([
    { jsonrpc: '2.0', id: 1, method: 'eth_estimateGas', params: [blake2f(DEFAULT_SIMULATION.gasCap - INTRINSIC)] },
    { jsonrpc: '2.0', id: 2, method: 'eth_estimateGas', params: [blake2f(29_000_000)] },
  ]).catch(() => undefined);

// The institutional limit stays on (10/s): the test runs as a run, so the transfer's calls wait out a 429 and
// are sent again (D-180, D-234); the attack's calls probe (PROBE_LIMIT) and see every answer.
it(
  'seals at least 80% of the blocks and confirms a transfer while simulated calls run',
  () =>
    withinRun(async () => {
      const sender = await newAccount(target, { fund: '10.00' });
      const recipient = await newAccount(target);
      const key = { bearer: await apiKey(target, A_PERMISSIONS) };
      const from = await head();
      const started = Date.now();
      const attacks = Array.from({ length: 4 }, attack);
      let transfer: Promise<{ posted: number; confirmed: number | undefined }> | undefined;
      for (let second = 1; second <= WINDOW_S; second++) {
        await new Promise((resolve) => setTimeout(resolve, started + second * 1000 - Date.now()));
        attacks.push(attack());
        if (second === WINDOW_S / 2) transfer = postAndConfirm(key, sender.id, recipient.address);
      }
      const sealed = (await head()) - from;
      const elapsed = (Date.now() - started) / 1000;
      const { posted, confirmed } = await transfer!;
      const answers = await Promise.all(attacks);
      // The attack ran: estimates at the cap were answered (the others refused by the in-flight bound, -32005).
      const estimated = answers.flatMap((a) => (Array.isArray(a?.json) ? a.json : [])).filter((e) => e.result);
      expect(estimated.length).toBeGreaterThan(0);
      expect(sealed, `${sealed} blocks in ${elapsed} s`).toBeGreaterThanOrEqual(Math.floor(0.8 * (elapsed / PERIOD_S)));
      expect(confirmed, 'the transfer confirmed').toBeDefined();
      expect(confirmed! - posted).toBeLessThanOrEqual(20_000);
    }),
  90_000,
);

/** Posts a transfer and polls it until confirmed, for at most 20 s (no block is asked for: the period seals it). */
async function postAndConfirm(key: { bearer: string }, fromAccountId: string, to: string) {
  const posted = Date.now();
  const created = await inst(target, 'POST', '/transfers', key, { body: { fromAccountId, to, amount: '1.00' } });
  if (created.status !== 201) throw new Error(`POST /transfers answered ${created.status}: ${created.text}`);
  const { txRef } = created.json as Created;
  while (Date.now() - posted <= 20_000) {
    if ((await transferOf(target, key, txRef)).status === 'confirmed') return { posted, confirmed: Date.now() };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { posted, confirmed: undefined };
}
