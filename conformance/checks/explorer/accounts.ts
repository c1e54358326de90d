// Explorer checks of /tx/{hash} and /address/{addr}: schemas, agreement with eth_getTransactionByHash,
// eth_getTransactionReceipt and eth_getBalance, the status values (D-004), four-decimal balances (D-033)
// and the accepted parameter forms (D-040).
import { getAddress, type Hex } from 'viem';
import type { ReceiptOrNull } from '@svckit/sdk/chain/types';
import type { Check, CheckContext } from '../../catalogue.ts';
import { skip, verdict } from '../define.ts';
import {
  badParameterProblems,
  betweenHeads,
  defineCheck,
  api,
  differences,
  fourDecimals,
  freshAddress,
  minedTransaction,
  randomHash,
  responseProblems,
  schemaCheck,
  rpcBatch,
  rpcResult,
  sendTransaction,
  someTransaction,
  waitForReceipt,
} from './support.ts';

const UNIT = 10n ** 18n;

/** Why a transaction check is skipped: the chain has none to look at, and the run cannot make one (D-241). */
const NOTHING_TO_LOOK_UP =
  'no transaction in the last 200 blocks to look up, and no administrator token to make one (D-241)';

type RpcTx = { hash: Hex; from: Hex; to: Hex | null; value: Hex; gas: Hex; gasPrice: Hex; nonce: Hex; input: Hex };

/** The explorer transaction the contract expects from the node's transaction and receipt. */
function expectedTransaction(tx: RpcTx, receipt: ReceiptOrNull): Record<string, unknown> {
  const int = (h: string) => Number(BigInt(h));
  const quantity = (h: string) => `0x${BigInt(h).toString(16)}`;
  return {
    hash: tx.hash.toLowerCase(),
    blockNumber: receipt ? int(receipt.blockNumber) : null,
    from: getAddress(tx.from),
    to: tx.to ? getAddress(tx.to) : null,
    value: quantity(tx.value),
    gas: int(tx.gas),
    gasPrice: quantity(receipt?.effectiveGasPrice ?? tx.gasPrice),
    nonce: int(tx.nonce),
    input: tx.input.toLowerCase(),
    status: receipt ? (BigInt(receipt.status) === 1n ? 'Success' : 'Failed') : 'Pending',
    gasUsed: receipt ? int(receipt.gasUsed) : null,
  };
}

/** Problems of /tx/{hash} against the node's view of the same transaction. */
async function transactionProblems(ctx: CheckContext, hash: Hex, path: string = hash): Promise<string[]> {
  const res = await api(ctx.target, `tx/${path}`);
  const problems = await responseProblems(ctx, '/tx/{hash}', res, 200);
  if (problems.length) return problems;
  const [tx, receipt] = await rpcBatch<RpcTx | ReceiptOrNull>(ctx.target, [
    { method: 'eth_getTransactionByHash', params: [hash] },
    { method: 'eth_getTransactionReceipt', params: [hash] },
  ]);
  if (!tx) return [`eth_getTransactionByHash knows no ${hash}`];
  return differences(expectedTransaction(tx as RpcTx, receipt as ReceiptOrNull), res.json, `/tx/${hash.slice(0, 10)}…`);
}

/** Problems of /address/{addr} against eth_getBalance at the stated block number. */
async function balanceProblems(ctx: CheckContext, address: string): Promise<string[]> {
  const { before, res, after } = await betweenHeads(ctx.target, `address/${address}`);
  const problems = await responseProblems(ctx, '/address/{addr}', res, 200);
  if (problems.length) return problems;
  const body = res.json as { address: string; balance: string; blockNumber: number };
  if (body.blockNumber < before || body.blockNumber > after)
    problems.push(`blockNumber ${body.blockNumber} is not the latest (eth_blockNumber ${before}..${after})`);
  if (body.address !== getAddress(address))
    problems.push(`address ${body.address} is not the EIP-55 form ${getAddress(address)} (D-040)`);
  const wei = BigInt(
    await rpcResult<Hex>(ctx.target, 'eth_getBalance', [address.toLowerCase(), `0x${body.blockNumber.toString(16)}`]),
  );
  if (body.balance !== fourDecimals(wei))
    problems.push(
      `balance ${body.balance} for ${address}: eth_getBalance at block ${body.blockNumber} is ${wei} wei = ${fourDecimals(wei)}`,
    );
  return problems;
}

/** The /tx/{hash} checks. */
function transactionChecks(): Check[] {
  return [
    defineCheck({
      id: 'explorer.tx.schema',
      title: 'GET /api/tx/{hash} answers 200 with an ExplorerTransaction',
      source: {
        quote:
          'Fields: hash, blockNumber (integer), from, to, value (hex string), gas (integer), gasPrice (hex string), nonce (integer), input (hex string), status (string), gasUsed (integer).',
      },
      async run(ctx) {
        const hash = await someTransaction(ctx.target);
        if (!hash) return skip(NOTHING_TO_LOOK_UP);
        const res = await api(ctx.target, `tx/${hash}`);
        return verdict(await responseProblems(ctx, '/tx/{hash}', res, 200), res);
      },
    }),
    defineCheck({
      id: 'explorer.tx.agrees_with_rpc',
      title: '/api/tx/{hash} (either case) equals eth_getTransactionByHash plus eth_getTransactionReceipt',
      source: { quote: 'Anything it does can also be done directly via JSON-RPC.' },
      async run(ctx) {
        const hash = await someTransaction(ctx.target);
        if (!hash) return skip(NOTHING_TO_LOOK_UP);
        const upper = `0x${hash.slice(2).toUpperCase()}`;
        return verdict([...(await transactionProblems(ctx, hash)), ...(await transactionProblems(ctx, hash, upper))]);
      },
    }),
    defineCheck({
      id: 'explorer.tx.status_values',
      title:
        '/api/tx/{hash} status is Success (receipt 0x1), Failed (receipt 0x0) or Pending (no receipt; blockNumber and gasUsed null)',
      source: { decision: 'D-004' },
      needs: ['base', 'reference'],
      async run(ctx) {
        const problems: string[] = [];
        const success = await minedTransaction(ctx.target);
        // A contract creation whose init code reverts (PUSH1 0 PUSH1 0 REVERT): mined with status 0x0, `to` null.
        const failed = await sendTransaction(ctx.target, { to: null, value: 0n, data: '0x60006000fd', gas: 100_000n });
        await waitForReceipt(ctx.target, failed);
        // A nonce gap keeps a transaction in the pool: known to the node, without a receipt.
        const pending = await sendTransaction(ctx.target, {
          sender: 'nonce-gap',
          nonceGap: 1 + Math.floor(Math.random() * 1_000_000),
        });
        for (const [hash, status] of [
          [success, 'Success'],
          [failed, 'Failed'],
          [pending, 'Pending'],
        ] as const) {
          const found = await transactionProblems(ctx, hash);
          problems.push(...found);
          if (!found.length) {
            const body = (await api(ctx.target, `tx/${hash}`)).json as { status: string };
            if (body.status !== status) problems.push(`${hash}: status ${body.status}, expected ${status}`);
          }
        }
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'explorer.tx.bad_hash_400',
      title: '/api/tx/{hash} answers 400 {error, code} naming "hash" for anything but 0x + 64 hex',
      source: { decision: 'D-040' },
      async run(ctx) {
        const bad = ['0x88df0164', 'abc', randomHash().slice(2), `${randomHash()}a`, `0x${'g'.repeat(64)}`, 'latest'];
        return verdict(await badParameterProblems(ctx, '/tx/{hash}', bad));
      },
    }),
    defineCheck({
      id: 'explorer.tx.unknown_404',
      title: '/api/tx/{hash} answers 404 {error, code} for a hash the node does not know',
      source: { decision: 'D-023' },
      async run(ctx) {
        const res = await api(ctx.target, `tx/${randomHash()}`);
        return verdict(await responseProblems(ctx, '/tx/{hash}', res, 404), res);
      },
    }),
  ];
}

/** The /address/{addr} checks. */
function addressChecks(): Check[] {
  return [
    schemaCheck('/address/{addr}', {
      id: 'explorer.address.schema',
      title: 'GET /api/address/{addr} answers 200 with an AddressBalance',
      source: {
        quote:
          'Fields: address (string), balance (string, decimal with four decimal places, in the native unit), blockNumber (integer).',
      },
      path: () => `address/${freshAddress()}`,
    }),
    defineCheck({
      id: 'explorer.address.agrees_with_rpc',
      title: '/api/address/{addr} balance equals eth_getBalance at the stated (latest) blockNumber, in four decimals',
      source: { quote: 'Anything it does can also be done directly via JSON-RPC.' },
      async run(ctx) {
        const latest = await rpcResult<{ miner: Hex }>(ctx.target, 'eth_getBlockByNumber', ['latest', false]);
        const addresses: string[] = [latest.miner, freshAddress()];
        const hash = await someTransaction(ctx.target);
        if (hash) addresses.push((await rpcResult<RpcTx>(ctx.target, 'eth_getTransactionByHash', [hash])).from);
        const problems: string[] = [];
        for (const address of addresses) problems.push(...(await balanceProblems(ctx, address)));
        return verdict(problems, undefined, `checked ${addresses.length} addresses`);
      },
    }),
    defineCheck({
      id: 'explorer.address.four_decimals',
      title:
        '/api/address/{addr} shows exactly four fraction digits, truncated toward zero (1.23456789 → 1.2345; 0.00009999 → 0.0000)',
      source: { decision: 'D-033' },
      needs: ['base', 'reference'],
      async run(ctx) {
        const cases = [
          { wei: 123_456_789n * 10n ** 10n, balance: '1.2345' },
          { wei: 9_999n * 10n ** 10n, balance: '0.0000' },
          { wei: 2n * UNIT, balance: '2.0000' },
        ];
        const problems: string[] = [];
        for (const { wei, balance } of cases) {
          const to = freshAddress();
          await minedTransaction(ctx.target, { to, value: wei });
          const res = await api(ctx.target, `address/${to}`);
          problems.push(...(await responseProblems(ctx, '/address/{addr}', res, 200)));
          const got = (res.json as { balance?: string } | undefined)?.balance;
          if (got !== balance) problems.push(`${wei} wei shows as ${JSON.stringify(got)}, expected "${balance}"`);
        }
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'explorer.address.forms',
      title:
        '/api/address/{addr} accepts all-lower and all-upper hex, answers with the EIP-55 form, and refuses a wrong checksum or malformed address with 400',
      source: { decision: 'D-040' },
      async run(ctx) {
        const address = freshAddress();
        const problems: string[] = [];
        for (const form of [address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`, address]) {
          const res = await api(ctx.target, `address/${form}`);
          problems.push(...(await responseProblems(ctx, '/address/{addr}', res, 200)));
          const got = (res.json as { address?: string } | undefined)?.address;
          if (res.status === 200 && got !== address)
            problems.push(`address ${form} answered as ${got}, expected ${address}`);
        }
        // Flip the case of one letter of a checksummed address: mixed case with a wrong checksum.
        const letter = [...address].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
        const flipped =
          letter < 0
            ? undefined
            : address.slice(0, letter) +
              (address[letter] === address[letter]!.toLowerCase()
                ? address[letter]!.toUpperCase()
                : address[letter]!.toLowerCase()) +
              address.slice(letter + 1);
        const wrong =
          flipped &&
          flipped.slice(2) !== flipped.slice(2).toLowerCase() &&
          flipped.slice(2) !== flipped.slice(2).toUpperCase()
            ? [flipped]
            : [];
        for (const bad of [...wrong, '0x123', 'hello', address.slice(2), `${address}0`, `0x${'g'.repeat(40)}`]) {
          const res = await api(ctx.target, `address/${encodeURIComponent(bad)}`);
          problems.push(...(await responseProblems(ctx, '/address/{addr}', res, 400)));
          const error = (res.json as { error?: string } | undefined)?.error ?? '';
          if (res.status === 400 && !error.includes('"addr"'))
            problems.push(`400 for ${JSON.stringify(bad)} does not name the field "addr": ${JSON.stringify(error)}`);
        }
        return verdict(problems);
      },
    }),
  ];
}

/** The explorer checks of transactions and balances. */
export function explorerAccountChecks(): Check[] {
  return [...transactionChecks(), ...addressChecks()];
}
