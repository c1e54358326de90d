// Explorer checks of /stats, /blocks and /block/{id}: each answer against the contract's response schema,
// and each view against the JSON-RPC calls it wraps (spec: "Anything it does can also be done directly
// via JSON-RPC").
import type { Hex } from 'viem';
import type { Check, CheckContext } from '../../catalogue.ts';
import { verdict } from '../define.ts';
import {
  badParameterProblems,
  betweenHeads,
  defineCheck,
  api,
  blocksByNumber,
  differences,
  ensureHeight,
  expectedBlock,
  headNumber,
  minedTransaction,
  randomHash,
  responseProblems,
  schemaCheck,
  rpcResult,
  type RpcBlock,
} from './support.ts';

/** The texts a D-041 average may be: the exact value truncated or rounded to 2 decimals (D-041 fixes neither). */
function acceptableAverages(latest: number, earlier: number, blocks: number): string[] {
  if (blocks === 0) return ['0.00'];
  const scaled = (latest - earlier) * 100;
  const low = Math.floor(scaled / blocks);
  const high = Math.ceil(scaled / blocks);
  return [...new Set([low, high])].map((h) => `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`);
}

/** The checks of /stats. */
function statsChecks(): Check[] {
  return [
    schemaCheck('/stats', {
      id: 'explorer.stats.schema',
      title: 'GET /api/stats answers 200 with a ChainStats body',
      source: {
        quote:
          'Fields: blockNumber (integer), avgBlockTime (string, decimal seconds, averaged over the last 20 blocks).',
      },
    }),
    defineCheck({
      id: 'explorer.stats.agrees_with_rpc',
      title: '/api/stats blockNumber is the head eth_blockNumber reports',
      source: { quote: 'Anything it does can also be done directly via JSON-RPC.' },
      async run(ctx) {
        const { before, res, after } = await betweenHeads(ctx.target, 'stats');
        const problems = await responseProblems(ctx, '/stats', res, 200);
        const got = (res.json as { blockNumber?: number }).blockNumber ?? -1;
        if (got < before || got > after)
          problems.push(`blockNumber ${got} is not the head (eth_blockNumber was ${before} before and ${after} after)`);
        return verdict(problems, res);
      },
    }),
    defineCheck({
      id: 'explorer.stats.avg_block_time',
      title: '/api/stats avgBlockTime is (t_latest - t_(latest-20)) / 20 with 2 decimals, fewer blocks near genesis',
      source: { decision: 'D-041' },
      async run(ctx) {
        if (ctx.target.reference) {
          // The full 20-block window, and a second between its ends so the average is not trivially 0.
          await ensureHeight(ctx.target, 25);
          await new Promise((resolve) => setTimeout(resolve, 1_100));
          await ctx.target.reference.mineBlock();
        }
        const res = await api(ctx.target, 'stats');
        const problems = await responseProblems(ctx, '/stats', res, 200);
        if (problems.length) return verdict(problems, res);
        const { blockNumber, avgBlockTime } = res.json as { blockNumber: number; avgBlockTime: string };
        const span = Math.min(20, blockNumber);
        const [latest, earlier] = await blocksByNumber(ctx.target, [blockNumber, blockNumber - span]);
        if (!latest || !earlier)
          return verdict([`eth_getBlockByNumber has no block ${blockNumber} or ${blockNumber - span}`], res);
        const allowed = acceptableAverages(Number(BigInt(latest.timestamp)), Number(BigInt(earlier.timestamp)), span);
        if (!allowed.includes(avgBlockTime)) {
          problems.push(
            `avgBlockTime ${avgBlockTime}: blocks ${blockNumber - span}..${blockNumber} give ${allowed.join(' or ')} (D-041)`,
          );
        }
        return verdict(problems, res);
      },
    }),
  ];
}

/** Checks /blocks: its schema, and its ten entries against eth_getBlockByNumber. */
function blocksChecks(): Check[] {
  return [
    schemaCheck('/blocks', {
      id: 'explorer.blocks.schema',
      title: 'GET /api/blocks answers 200 with at most 10 Block headers',
      source: { quote: 'array of the 10 most recent blocks, headers only (transactions listed as hashes)' },
    }),
    defineCheck({
      id: 'explorer.blocks.agrees_with_rpc',
      title: '/api/blocks holds the 10 most recent blocks, newest first, each as eth_getBlockByNumber gives it',
      source: { quote: '10 blocks; 10 transactions' },
      async run(ctx) {
        // On the reference chain: more than 10 blocks, the newest holding a transaction.
        await ensureHeight(ctx.target, 12);
        if (ctx.target.reference) await minedTransaction(ctx.target);
        const { before, res, after } = await betweenHeads(ctx.target, 'blocks');
        const problems = await responseProblems(ctx, '/blocks', res, 200);
        if (problems.length) return verdict(problems, res);
        const list = res.json as { number: number }[];
        const head = list[0]?.number ?? -1;
        if (head < before || head > after)
          problems.push(`the first block is ${head}, not the head (eth_blockNumber ${before}..${after})`);
        const numbers = Array.from({ length: Math.min(10, head + 1) }, (_, i) => head - i);
        if (list.length !== numbers.length)
          problems.push(`expected ${numbers.length} blocks (${numbers.join(', ')}), got ${list.length}`);
        const nodeBlocks = await blocksByNumber(ctx.target, numbers);
        nodeBlocks.forEach((block, i) => {
          if (!block) problems.push(`eth_getBlockByNumber has no block ${numbers[i]}`);
          else problems.push(...differences(expectedBlock(block), list[i], `[${i}]`));
        });
        return verdict(problems, res);
      },
    }),
  ];
}

/** Fetches /block/{id} and compares it with the node's block; returns problems. */
async function blockMatches(ctx: CheckContext, id: string, block: RpcBlock): Promise<string[]> {
  const res = await api(ctx.target, `block/${id}`);
  const problems = await responseProblems(ctx, '/block/{id}', res, 200);
  return problems.length ? problems : differences(expectedBlock(block), res.json, `/block/${id.slice(0, 12)}…`);
}

/** Checks /block/{id}: schema, agreement by number and by hash, 400 for malformed ids and 404 for unknown blocks. */
function blockChecks(): Check[] {
  return [
    defineCheck({
      id: 'explorer.block.schema',
      title: 'GET /api/block/{id} answers 200 with a Block for the head, for genesis and for a hash',
      source: { quote: 'one block with the list of its transaction hashes' },
      async run(ctx) {
        const head = await rpcResult<RpcBlock>(ctx.target, 'eth_getBlockByNumber', ['latest', false]);
        const problems: string[] = [];
        for (const id of [String(Number(BigInt(head.number))), '0', head.hash]) {
          problems.push(...(await responseProblems(ctx, '/block/{id}', await api(ctx.target, `block/${id}`), 200)));
        }
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'explorer.block.agrees_with_rpc',
      title:
        '/api/block/{id} by decimal number and by hash (either case) equals eth_getBlockByNumber / eth_getBlockByHash',
      source: { quote: 'id: string, a decimal block number or a 0x-prefixed 32-byte block hash' },
      async run(ctx) {
        if (ctx.target.reference) await minedTransaction(ctx.target);
        const block = await rpcResult<RpcBlock>(ctx.target, 'eth_getBlockByNumber', ['latest', false]);
        const byHash = await rpcResult<RpcBlock>(ctx.target, 'eth_getBlockByHash', [block.hash, false]);
        const problems = [
          ...(await blockMatches(ctx, String(Number(BigInt(block.number))), block)),
          ...(await blockMatches(ctx, block.hash, byHash)),
          ...(await blockMatches(ctx, `0x${block.hash.slice(2).toUpperCase()}`, byHash)),
        ];
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'explorer.block.bad_id_400',
      title:
        '/api/block/{id} answers 400 {error, code} naming "id" for hex numbers, leading zeros, tags and bad hashes',
      source: { decision: 'D-041' },
      async run(ctx) {
        const hex63 = randomHash().slice(0, 65);
        const bad = [
          '0x10',
          '010',
          '00',
          'latest',
          'earliest',
          '-1',
          '1.5',
          '1e3',
          ' 1',
          'abc',
          hex63,
          `${randomHash()}0`,
          `0x${'g'.repeat(64)}`,
        ];
        return verdict(await badParameterProblems(ctx, '/block/{id}', bad));
      },
    }),
    defineCheck({
      id: 'explorer.block.unknown_404',
      title: '/api/block/{id} answers 404 {error, code} for a number past the head and for an unknown hash',
      source: { decision: 'D-041' },
      async run(ctx) {
        const problems: string[] = [];
        for (const id of [String((await headNumber(ctx.target)) + 1_000_000), randomHash() as Hex]) {
          problems.push(...(await responseProblems(ctx, '/block/{id}', await api(ctx.target, `block/${id}`), 404)));
        }
        return verdict(problems);
      },
    }),
  ];
}

/** The explorer checks of the chain views: /stats, /blocks, /block/{id}. */
export function explorerChainChecks(): Check[] {
  return [...statsChecks(), ...blocksChecks(), ...blockChecks()];
}
