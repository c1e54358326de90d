// Explorer checks of /txns (spec: "array of the 10 most recent transactions, each {hash, blockNumber,
// timestamp}; cached for 20 seconds; scans the last 200 blocks"). The window and cache checks drive the
// reference stack's clock and chain; the others run against any target, making a transfer to list when the
// chain has none and the run holds the administrator token (D-241).
import type { Hex } from 'viem';
import type { Check, CheckContext } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { skip, verdict } from '../define.ts';
import { madeTransfer, mayCreate } from '../support/made-transfer.ts';
import {
  defineCheck,
  api,
  blocksByNumber,
  headNumber,
  minedTransaction,
  recentTransaction,
  responseProblems,
  rpcBatch,
  sendTransaction,
  waitForReceipt,
} from './support.ts';

/** spec: "cached for 20 seconds". */
const CACHE_MS = 20_000;
/** spec: "scans the last 200 blocks". */
const SCAN_BLOCKS = 200;

type Summary = { hash: Hex; blockNumber: number; timestamp: number };

/** GET /txns after moving the reference clock past the cache window, so the list is fresh. */
async function freshTxns(ctx: CheckContext): Promise<HttpResult> {
  ctx.target.reference?.advanceClock(CACHE_MS + 1);
  return api(ctx.target, 'txns');
}

/**
 * A transaction mined for /txns to list: on the reference stack a fresh one; elsewhere, when the last 200 blocks
 * hold none and the run holds the administrator token, a transfer made through the institutional API (D-241).
 * Undefined when the chain has transactions already, or none can be made.
 */
async function transactionToList(target: Target): Promise<Hex | undefined> {
  if (target.reference) return minedTransaction(target);
  if (!mayCreate(target) || (await recentTransaction(target))) return undefined;
  return madeTransfer(target);
}

/**
 * GET /txns once the cache window is over (the reference's clock is moved past it; elsewhere the list is asked
 * for again each second), until it lists `hash` or the window and a second have passed in real time.
 */
async function listing(ctx: CheckContext, hash: Hex): Promise<HttpResult> {
  const deadline = Date.now() + CACHE_MS + 1_000;
  for (;;) {
    const res = await freshTxns(ctx);
    if (hashesOf(res).includes(hash) || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The 10 newest transactions of the last 200 blocks, read over JSON-RPC; within a block newest (last) first or first first. */
async function scanExpected(target: Target, lastFirstInBlock: boolean): Promise<Summary[]> {
  const head = await headNumber(target);
  const numbers = Array.from({ length: Math.min(SCAN_BLOCKS, head + 1) }, (_, i) => head - i);
  const out: Summary[] = [];
  for (const block of await blocksByNumber(target, numbers)) {
    if (!block) continue;
    const hashes = block.transactions.map((h) => h.toLowerCase() as Hex);
    if (lastFirstInBlock) hashes.reverse();
    for (const hash of hashes)
      out.push({ hash, blockNumber: Number(BigInt(block.number)), timestamp: Number(BigInt(block.timestamp)) });
  }
  return out.slice(0, 10);
}

/** Mines empty blocks on the reference stack until the head is `target` (or past it). */
async function mineUntil(target: Target, number: number): Promise<void> {
  for (let head = await headNumber(target); head < number; head++) await target.reference!.mineBlock();
}

/** The hashes of a /txns answer. */
const hashesOf = (res: HttpResult) => (Array.isArray(res.json) ? (res.json as Summary[]).map((t) => t.hash) : []);

/** The /txns checks. */
export function explorerTxnsChecks(): Check[] {
  return [
    defineCheck({
      id: 'explorer.txns.schema',
      title: 'GET /api/txns answers 200 with at most 10 {hash, blockNumber, timestamp}',
      source: { quote: 'array of the 10 most recent transactions, each {hash, blockNumber, timestamp}' },
      async run(ctx) {
        if (ctx.target.reference) await minedTransaction(ctx.target);
        const res = await freshTxns(ctx);
        return verdict(await responseProblems(ctx, '/txns', res, 200), res);
      },
    }),
    defineCheck({
      id: 'explorer.txns.agrees_with_rpc',
      title:
        "each /api/txns entry is mined at its blockNumber (eth_getTransactionByHash) with that block's timestamp, newest block first",
      source: { quote: 'Anything it does can also be done directly via JSON-RPC.' },
      deadlineMs: 90_000,
      async run(ctx) {
        const made = await transactionToList(ctx.target);
        const res = made ? await listing(ctx, made) : await freshTxns(ctx);
        const problems = await responseProblems(ctx, '/txns', res, 200);
        if (problems.length) return verdict(problems, res);
        const list = res.json as Summary[];
        if (list.length === 0) {
          return made
            ? verdict([`/txns is empty although the transaction ${made} was just mined`], res)
            : skip(
                '/txns lists no transactions (none in the last 200 blocks, or a list up to 20 s old), and no administrator token to make one (D-241)',
              );
        }
        const txs = await rpcBatch<{ blockNumber: Hex | null } | null>(
          ctx.target,
          list.map((t) => ({ method: 'eth_getTransactionByHash', params: [t.hash] })),
        );
        const blocks = await blocksByNumber(
          ctx.target,
          list.map((t) => t.blockNumber),
        );
        list.forEach((t, i) => {
          const mined = txs[i]?.blockNumber ? Number(BigInt(txs[i]!.blockNumber!)) : null;
          if (mined !== t.blockNumber)
            problems.push(`${t.hash}: blockNumber ${t.blockNumber}, eth_getTransactionByHash says ${mined}`);
          const ts = blocks[i] ? Number(BigInt(blocks[i]!.timestamp)) : null;
          if (ts !== t.timestamp)
            problems.push(`${t.hash}: timestamp ${t.timestamp}, block ${t.blockNumber} has ${ts}`);
          if (i > 0 && t.blockNumber > list[i - 1]!.blockNumber)
            problems.push(`entry ${i} (block ${t.blockNumber}) is newer than entry ${i - 1}: not newest first`);
        });
        if (new Set(list.map((t) => t.hash)).size !== list.length) problems.push('a transaction is listed twice');
        return verdict(problems, res);
      },
    }),
    defineCheck({
      id: 'explorer.txns.recent_window',
      title: '/api/txns lists exactly the 10 newest transactions of the last 200 blocks',
      source: { quote: '10 blocks; 10 transactions' },
      needs: ['base', 'reference'],
      async run(ctx) {
        // More than ten, sent without waiting, so some blocks hold several.
        let last: Hex | undefined;
        for (let i = 0; i < 12; i++) last = await sendTransaction(ctx.target, { value: BigInt(i + 1) });
        await waitForReceipt(ctx.target, last!);
        const res = await freshTxns(ctx);
        const problems = await responseProblems(ctx, '/txns', res, 200);
        if (problems.length) return verdict(problems, res);
        const got = JSON.stringify(res.json);
        const lastFirst = await scanExpected(ctx.target, true);
        const firstFirst = await scanExpected(ctx.target, false);
        if (got !== JSON.stringify(lastFirst) && got !== JSON.stringify(firstFirst)) {
          return {
            status: 'failed',
            reason: 'the list is not the 10 newest transactions of the last 200 blocks',
            request: res.request,
            expected: lastFirst,
            actual: res.json,
          };
        }
        return verdict([], res);
      },
    }),
    defineCheck({
      id: 'explorer.txns.scan_window',
      title: '/api/txns includes a transaction while it is within the last 200 blocks and drops it at the 201st',
      source: { quote: 'scans the last 200 blocks' },
      needs: ['base', 'reference'],
      async run(ctx) {
        const hash = await minedTransaction(ctx.target);
        const { blockNumber } = await waitForReceipt(ctx.target, hash);
        const mined = Number(BigInt(blockNumber));
        await mineUntil(ctx.target, mined + SCAN_BLOCKS - 1);
        const inside = await freshTxns(ctx);
        const problems = await responseProblems(ctx, '/txns', inside, 200);
        if (!hashesOf(inside).includes(hash))
          problems.push(
            `${hash} (block ${mined}) is missing at head ${mined + SCAN_BLOCKS - 1}, where block ${mined} is the 200th newest`,
          );
        await mineUntil(ctx.target, mined + SCAN_BLOCKS);
        const outside = await freshTxns(ctx);
        problems.push(...(await responseProblems(ctx, '/txns', outside, 200)));
        if (hashesOf(outside).includes(hash))
          problems.push(`${hash} (block ${mined}) is still listed at head ${mined + SCAN_BLOCKS}, 201 blocks later`);
        return verdict(problems, outside);
      },
    }),
    defineCheck({
      id: 'explorer.txns.cache_window',
      title:
        '/api/txns answers a list at most 20 seconds old (of injected clock time), served from its cache within those 20 seconds',
      source: { quote: 'cached for 20 seconds' },
      needs: ['base', 'reference'],
      async run(ctx) {
        // More than 20 s after any earlier answer, a transaction mined just before the request: a list no
        // older than 20 s has it first. A longer cache may still hold a list from before it.
        ctx.target.reference!.advanceClock(CACHE_MS + 1);
        const before = await minedTransaction(ctx.target);
        const first = await api(ctx.target, 'txns');
        const problems = await responseProblems(ctx, '/txns', first, 200);
        if (hashesOf(first)[0] !== before)
          problems.push(
            `20 s after any earlier answer the newest entry is ${hashesOf(first)[0]}, not the transaction ${before} mined just before: the list is older than 20 s`,
          );
        const hash = await minedTransaction(ctx.target);
        // 18 s of clock time (plus the real time the transaction took): still inside the window.
        ctx.target.reference!.advanceClock(CACHE_MS - 2_000);
        const cached = await api(ctx.target, 'txns');
        if (cached.text !== first.text)
          problems.push(
            `18 s after the first answer /txns changed (the cache must hold 20 s): ${cached.text.slice(0, 200)}`,
          );
        ctx.target.reference!.advanceClock(2_100);
        const refreshed = await api(ctx.target, 'txns');
        problems.push(...(await responseProblems(ctx, '/txns', refreshed, 200)));
        if (hashesOf(refreshed)[0] !== hash)
          problems.push(
            `20.1 s after the first answer the newest entry is ${hashesOf(refreshed)[0]}, not the transaction ${hash} mined meanwhile`,
          );
        return verdict(problems, refreshed);
      },
    }),
  ];
}
