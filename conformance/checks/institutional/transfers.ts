// Surface A transfers end to end (spec "Behaviour of POST /transfers", "Transfer status (A)"): pending to
// confirmed on the chain, server-side signing, the record stored before the broadcast, memo encryption
// (D-032), concurrent nonces, and on the in-process stack a failed broadcast (the node refuses one send) and a
// server crash between the stored record and the broadcast (D-078).
import { bytesToHex, getAddress, toBytes, type Hex } from 'viem';
import type { Check, CheckContext, CheckVerdict } from '../../catalogue.ts';
import type { ReferenceControl, SendFault } from '../../targets/target.ts';
import { rpcBatch, rpcResult } from '../explorer/support.ts';
import { type CheckDefinition, verdict } from '../define.ts';
import {
  contractProblems,
  defineCheck,
  fixture,
  inst,
  newAccount,
  settled,
  sleep,
  smallAmount,
  transferOf,
  weiOf,
  whileHeld,
  WITH_ADMIN,
  WITH_REFERENCE,
  type AccountView,
  type Created,
  type Fixture,
  type TransferView,
} from './support.ts';

type RpcTx = {
  from: Hex;
  to: Hex | null;
  value: Hex;
  gasPrice: Hex;
  chainId?: Hex;
  nonce: Hex;
  input: Hex;
  blockNumber: Hex | null;
};

/** POST /transfers from `from` to `to` with the fixture's unrestricted key; throws unless 201. */
async function send(ctx: CheckContext, from: AccountView, to: Hex, amount: string, memo?: string): Promise<Created> {
  const f = await fixture(ctx.target);
  const res = await inst(
    ctx.target,
    'POST',
    '/transfers',
    { bearer: f.full },
    { body: { fromAccountId: from.id, to, amount, ...(memo ? { memo } : {}) } },
  );
  if (res.status !== 201) throw new Error(`POST /transfers answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json as Created;
}

const txOf = (ctx: CheckContext, hash: Hex) => rpcResult<RpcTx | null>(ctx.target, 'eth_getTransactionByHash', [hash]);
const nonceOf = async (ctx: CheckContext, address: Hex) =>
  Number(BigInt(await rpcResult<Hex>(ctx.target, 'eth_getTransactionCount', [address, 'latest'])));
const freshAddress = () => getAddress(bytesToHex(crypto.getRandomValues(new Uint8Array(20))));

/** Lifecycle and signing. */
function lifecycleChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.transfer.lifecycle',
      title:
        'A transfer goes from pending to confirmed, carrying the blockNumber and timestamp of its receipt and block',
      source: { quote: 'A confirmed transfer carries blockNumber and timestamp.' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const res = await inst(
          ctx.target,
          'POST',
          '/transfers',
          { mldsa: f.keys },
          { body: { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.75' } },
        );
        const problems = await contractProblems(ctx, 'POST /transfers', res, 201, 'signed with SVC-MLDSA');
        if (problems.length) return verdict(problems, res);
        const created = res.json as Created;
        if (created.status !== 'pending' || !created.ok)
          problems.push(`expected ok true and status pending on creation, got ${JSON.stringify(created)}`);
        const done = await settled(ctx.target, { mldsa: f.keys }, created.txRef);
        if (done.status !== 'confirmed')
          return verdict([...problems, `the transfer ended ${done.status}, expected confirmed`], res);
        const receipt = await rpcResult<{ blockNumber: Hex; status: Hex }>(ctx.target, 'eth_getTransactionReceipt', [
          created.txHash,
        ]);
        const block = await rpcResult<{ timestamp: Hex }>(ctx.target, 'eth_getBlockByNumber', [
          receipt.blockNumber,
          false,
        ]);
        if (done.blockNumber !== Number(BigInt(receipt.blockNumber)))
          problems.push(`blockNumber ${done.blockNumber}; the receipt says ${Number(BigInt(receipt.blockNumber))}`);
        if (done.timestamp !== Number(BigInt(block.timestamp)))
          problems.push(`timestamp ${done.timestamp}; the block says ${Number(BigInt(block.timestamp))}`);
        if (receipt.status !== '0x1') problems.push(`confirmed, but the receipt status is ${receipt.status} (D-006)`);
        return verdict(problems, res);
      },
    }),
    defineCheck({
      id: 'institutional.transfer.server_signed',
      title:
        "The chain transaction is signed by the account's own key: from its address, chain 1111111, the amount in wei, gas price 0",
      source: {
        quote:
          "The transfer is signed on the server with the account's encrypted private key; no password or key material is sent in the request.",
      },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const amount = smallAmount();
        const created = await send(ctx, f.sender, f.recipient.address, amount);
        await settled(ctx.target, { bearer: f.full }, created.txRef);
        const tx = await txOf(ctx, created.txHash);
        if (!tx) return verdict([`the node knows no transaction ${created.txHash}`]);
        const problems: string[] = [];
        if (getAddress(tx.from) !== f.sender.address)
          problems.push(`from ${tx.from}, expected the account address ${f.sender.address}`);
        if (!tx.to || getAddress(tx.to) !== f.recipient.address)
          problems.push(`to ${tx.to}, expected ${f.recipient.address}`);
        if (BigInt(tx.value) !== weiOf(amount))
          problems.push(`value ${BigInt(tx.value)} wei, expected ${weiOf(amount)} for "${amount}"`);
        if (BigInt(tx.gasPrice) !== 0n)
          problems.push(`gas price ${BigInt(tx.gasPrice)}, expected 0 (spec: "The gas price is always 0")`);
        if (tx.chainId !== undefined && BigInt(tx.chainId) !== 1111111n)
          problems.push(`chain id ${BigInt(tx.chainId)}, expected 1111111`);
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'institutional.transfer.stored_before_broadcast',
      title:
        'Between its stored record and its broadcast, a transfer is already readable (pending) while the node does not know it',
      source: { quote: 'The transfer record is stored before the broadcast.' },
      needs: WITH_REFERENCE,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const amount = smallAmount();
        const hold = await whileHeld(ctx.target, () => send(ctx, f.sender, f.recipient.address, amount));
        const problems: string[] = [];
        try {
          const listed = await inst(ctx.target, 'GET', `/transfers?accountId=${f.sender.id}&limit=1`, {
            bearer: f.full,
          });
          const newest = ((listed.json as { transfers?: TransferView[] }).transfers ?? [])[0];
          if (!newest || newest.amount !== twoDigits(amount) || newest.status !== 'pending')
            problems.push(
              `before the broadcast the newest transfer is ${JSON.stringify(newest)}; expected the pending ${amount}`,
            );
          else if (await txOf(ctx, newest.txHash))
            problems.push(`the node knows ${newest.txHash} before the broadcast`);
        } finally {
          hold.release();
        }
        const created = await hold.posting;
        const done = await settled(ctx.target, { bearer: f.full }, created.txRef);
        if (done.status !== 'confirmed') problems.push(`after the broadcast the transfer ended ${done.status}`);
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'institutional.transfer.pending_fields',
      title:
        'A pending transfer shows txHash, and blockNumber and timestamp as null, in GET /transfers/{reference} and the statement',
      source: { decision: 'D-038' },
      needs: WITH_REFERENCE,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const hold = await whileHeld(ctx.target, () => send(ctx, f.sender, f.recipient.address, smallAmount()));
        const problems: string[] = [];
        try {
          const statement = await inst(ctx.target, 'GET', `/accounts/${f.sender.id}/statement?limit=1`, {
            bearer: f.full,
          });
          problems.push(
            ...(await contractProblems(ctx, 'GET /accounts/{id}/statement', statement, 200, 'while pending')),
          );
          const line = ((statement.json as { transactions?: Record<string, unknown>[] }).transactions ?? [])[0];
          const read = line
            ? await inst(ctx.target, 'GET', `/transfers/${String(line.txRef)}`, { bearer: f.full })
            : undefined;
          if (read)
            problems.push(...(await contractProblems(ctx, 'GET /transfers/{reference}', read, 200, 'while pending')));
          for (const [where, item] of [
            ['statement line', line],
            ['transfer', read?.json as Record<string, unknown> | undefined],
          ] as const) {
            if (
              item?.status !== 'pending' ||
              item.blockNumber !== null ||
              item.timestamp !== null ||
              !/^0x[0-9a-f]{64}$/i.test(String(item.txHash))
            ) {
              problems.push(
                `${where} while pending: expected status pending, blockNumber and timestamp null and a txHash, got ${JSON.stringify(item)}`,
              );
            }
          }
        } finally {
          hold.release();
        }
        await settled(ctx.target, { bearer: f.full }, (await hold.posting).txRef);
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'institutional.transfer.concurrent_nonces',
      title:
        'Eight concurrent transfers from one account all confirm, with the nonces 0 to 7 and none reused or skipped',
      source: { decision: 'D-078' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { fund: '10.00' });
        const created = await Promise.all(
          Array.from({ length: 8 }, () => send(ctx, account, f.recipient.address, '0.10')),
        );
        const done = await Promise.all(created.map((c) => settled(ctx.target, { bearer: f.full }, c.txRef)));
        const problems = done.filter((d) => d.status !== 'confirmed').map((d) => `${d.txRef} ended ${d.status}`);
        const txs = await rpcBatch<RpcTx | null>(
          ctx.target,
          created.map((c) => ({ method: 'eth_getTransactionByHash', params: [c.txHash] })),
        );
        const nonces = txs.map((t) => (t ? Number(BigInt(t.nonce)) : -1)).sort((a, b) => a - b);
        if (nonces.join() !== '0,1,2,3,4,5,6,7')
          problems.push(`the nonces on the chain are ${nonces.join(', ')}; expected 0 to 7`);
        return verdict(problems);
      },
    }),
  ];
}

/** "1.5" → "1.50": the two-decimal form responses print (D-033). */
const twoDigits = (amount: string) => {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
};

/** Memo encryption (D-032). */
function memoChecks(): Check[] {
  const MEMO = 'Invoice 2026-1142 · Zahlung für März';
  return [
    defineCheck({
      id: 'institutional.memo.encrypted_on_chain',
      title:
        'A memo to a platform account lands in the transaction data as a D-032 envelope (0x53564d01…), its text nowhere in it',
      source: {
        quote:
          "memo is encrypted with the recipient's ML-KEM-768 public key before it is placed in the transaction data field, so chain observers cannot read it.",
      },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const created = await send(ctx, f.sender, f.recipient.address, smallAmount(), MEMO);
        const tx = await txOf(ctx, created.txHash);
        if (!tx) return verdict([`the node knows no transaction ${created.txHash}`]);
        const problems: string[] = [];
        const input = tx.input.toLowerCase();
        const length = 4 + 1088 + 12 + toBytes(MEMO).length + 16;
        if (!input.startsWith('0x53564d01'))
          problems.push(`the data starts ${input.slice(0, 10)}, not with the envelope header 0x53564d01 ("SVM" 0x01)`);
        if ((input.length - 2) / 2 !== length)
          problems.push(`the data is ${(input.length - 2) / 2} bytes; an envelope of this memo is ${length}`);
        if (input.includes(bytesToHex(toBytes('Invoice')).slice(2)))
          problems.push('the memo text is readable in the transaction data');
        await settled(ctx.target, { bearer: f.full }, created.txRef);
        return verdict(problems);
      },
    }),
    defineCheck({
      id: 'institutional.memo.opens_with_recipient_key',
      title: "The envelope opens with the recipient account's ML-KEM-768 key to the memo sent",
      source: { decision: 'D-032' },
      needs: WITH_REFERENCE,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const open = ctx.target.reference!.openMemo;
        if (!open) return { status: 'skipped', reason: 'the reference target offers no openMemo()' };
        const created = await send(ctx, f.sender, f.recipient.address, smallAmount(), MEMO);
        const memo = await open(created.txHash);
        await settled(ctx.target, { bearer: f.full }, created.txRef);
        return verdict(
          memo === MEMO ? [] : [`the envelope opened to ${JSON.stringify(memo)}, expected ${JSON.stringify(MEMO)}`],
        );
      },
    }),
    defineCheck({
      id: 'institutional.memo.plain_off_platform',
      title: 'A memo to an address outside the platform goes as plain UTF-8 bytes',
      source: { decision: 'D-032' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const created = await send(ctx, f.sender, freshAddress(), '0.01', MEMO);
        const tx = await txOf(ctx, created.txHash);
        const expected = bytesToHex(toBytes(MEMO));
        await settled(ctx.target, { bearer: f.full }, created.txRef);
        return verdict(
          tx?.input.toLowerCase() === expected
            ? []
            : [`the data is ${tx?.input.slice(0, 80)}…, expected the UTF-8 bytes ${expected.slice(0, 80)}…`],
        );
      },
    }),
  ];
}

/**
 * What a restart check runs with: the stack's controls, the fixture and a fresh account funded with 5.00.
 */
interface RestartSetting {
  ctx: CheckContext;
  ref: ReferenceControl & Required<Pick<ReferenceControl, 'crashAtNextBroadcast' | 'restart'>>;
  f: Fixture;
  account: AccountView;
}

/**
 * Defines a check that kills the in-process stack at the next broadcast and restarts it: skipped unless the
 * reference target offers both (it was started with persist: true).
 */
function restartCheck(
  definition: Omit<CheckDefinition, 'run' | 'needs'> & { run(on: RestartSetting): Promise<CheckVerdict> },
): Check {
  return defineCheck({
    ...definition,
    needs: WITH_REFERENCE,
    async run(ctx) {
      const ref = ctx.target.reference!;
      if (!ref.crashAtNextBroadcast || !ref.restart)
        return {
          status: 'skipped',
          reason: 'the reference target was started without persist: true (no crash/restart)',
        };
      const f = await fixture(ctx.target);
      const account = await newAccount(ctx.target, { fund: '5.00' });
      return definition.run({ ctx, ref: ref as RestartSetting['ref'], f, account });
    },
  });
}

/** The verdict of `institutional.transfer.broadcast_failure` once the node refuses the account's next send. */
async function refusedOnce(
  ctx: CheckContext,
  f: Fixture,
  account: AccountView,
  fault: SendFault,
): Promise<CheckVerdict> {
  const res = await inst(
    ctx.target,
    'POST',
    '/transfers',
    { bearer: f.full },
    { body: { fromAccountId: account.id, to: f.recipient.address, amount: '1.00' } },
  );
  const problems = await contractProblems(ctx, 'POST /transfers', res, 201, 'broadcast refused by the node');
  if (res.status !== 201) return verdict(problems, res);
  const created = res.json as Created;
  if (created.ok !== false || created.status !== 'failed')
    problems.push(`expected ok false and status failed (D-055), got ${JSON.stringify(created)}`);
  await ctx.target.reference!.mineBlock();
  await sleep(1_500); // the confirmer's poll period: a later retry would have happened by now
  const attempts = fault.attempts(created.txHash);
  if (attempts !== 1)
    problems.push(
      `the server sent ${created.txHash} to the node ${attempts} times; a refused broadcast is sent once and not retried`,
    );
  const later = await transferOf(ctx.target, { bearer: f.full }, created.txRef);
  if (later.status !== 'failed')
    problems.push(`1.5 s after the refusal the transfer is ${later.status}, expected failed`);
  if (await txOf(ctx, created.txHash))
    problems.push(`the node knows the refused transaction ${created.txHash}: it was sent again`);
  if (problems.length) return verdict(problems, res);
  const next = await send(ctx, account, f.recipient.address, '1.00');
  const done = await settled(ctx.target, { bearer: f.full }, next.txRef);
  const tx = await txOf(ctx, next.txHash);
  if (done.status !== 'confirmed')
    problems.push(`the next transfer ended ${done.status}; a nonce gap would leave it pending`);
  if (tx && Number(BigInt(tx.nonce)) !== 0)
    problems.push(`the next transfer used nonce ${Number(BigInt(tx.nonce))}; the failed one gave back nonce 0`);
  return verdict(problems, res);
}

/** Failure and recovery on the in-process stack (D-078). */
function recoveryChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.transfer.broadcast_failure',
      title:
        'A broadcast the node refuses once makes the transfer 201 ok:false failed; it is sent to the node exactly once, stays failed, and leaves no nonce gap',
      source: { quote: 'If the broadcast fails the record is marked failed and is not retried' },
      needs: WITH_REFERENCE,
      async run(ctx) {
        const ref = ctx.target.reference!;
        if (!ref.refuseNextSend)
          return { status: 'skipped', reason: 'the reference target offers no refuseNextSend()' };
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { fund: '5.00' });
        // The node refuses the first send from the account and accepts any later one: a server that sends the
        // transaction again, at once or later, gets it onto the chain and is counted sending it twice.
        const fault = ref.refuseNextSend(account.address);
        try {
          return await refusedOnce(ctx, f, account, fault);
        } finally {
          fault.end();
        }
      },
    }),
    restartCheck({
      id: 'institutional.transfer.crash_recovery',
      title:
        'A server stopped dead between the stored record and the broadcast (in process: the engine never resumes) sends that transfer exactly once after restart; nothing is lost or duplicated, and its Idempotency-Key replays it',
      source: { decision: 'D-078' },
      async run({ ctx, ref, f, account }) {
        const before = BigInt(await rpcResult<Hex>(ctx.target, 'eth_getBalance', [f.recipient.address, 'latest']));
        const key = { 'idempotency-key': `crash-${crypto.randomUUID()}` };
        const body = { fromAccountId: account.id, to: f.recipient.address, amount: '1.23' };
        const crashed = ref.crashAtNextBroadcast();
        const cut = await inst(ctx.target, 'POST', '/transfers', { bearer: f.full }, { body, headers: key }).then(
          (res) => `answered HTTP ${res.status}`,
          () => 'cut',
        );
        await crashed;
        await ref.restart();
        const problems =
          cut === 'cut' ? [] : [`the request in flight during the crash ${cut}; expected the connection to be cut`];
        const list = await inst(ctx.target, 'GET', `/transfers?accountId=${account.id}`, { bearer: f.full });
        const transfers = (list.json as { transfers?: TransferView[] }).transfers ?? [];
        if (transfers.length !== 1 || transfers[0]!.amount !== '1.23')
          return verdict(
            [
              ...problems,
              `after restart the account has ${JSON.stringify(transfers)}; expected the one transfer of 1.23`,
            ],
            list,
          );
        const done = await settled(ctx.target, { bearer: f.full }, transfers[0]!.txRef);
        if (done.status !== 'confirmed')
          problems.push(`the recovered transfer ended ${done.status}, expected confirmed`);
        // D-046: the body was stored with the transfer; once the dead request's claim is older than 60 s it is
        // replayed (before that the key reads as still in progress, 409).
        const early = await inst(ctx.target, 'POST', '/transfers', { bearer: f.full }, { body, headers: key });
        if (early.status !== 409)
          problems.push(
            `a retry with the same Idempotency-Key within 60 s of the crash answered ${early.status}, expected 409 (in progress)`,
          );
        ref.advanceClock(61_000);
        const retry = await inst(ctx.target, 'POST', '/transfers', { bearer: f.full }, { body, headers: key });
        if (retry.status !== 201)
          problems.push(
            `a retry with the same Idempotency-Key answered ${retry.status}; expected 201 replaying ${done.txRef}`,
          );
        else if ((retry.json as Created).txRef !== done.txRef)
          problems.push(
            `a retry with the same Idempotency-Key answered ${(retry.json as Created).txRef}, expected ${done.txRef}`,
          );
        const after = BigInt(await rpcResult<Hex>(ctx.target, 'eth_getBalance', [f.recipient.address, 'latest']));
        if (after - before !== weiOf('1.23'))
          problems.push(`the recipient received ${after - before} wei, expected exactly ${weiOf('1.23')} (once)`);
        if ((await nonceOf(ctx, account.address)) !== 1)
          problems.push(`the account sent ${await nonceOf(ctx, account.address)} transactions, expected 1`);
        const count = (
          (await inst(ctx.target, 'GET', `/transfers?accountId=${account.id}`, { bearer: f.full })).json as {
            total?: number;
          }
        ).total;
        if (count !== 1) problems.push(`the account has ${count} transfer records after the retry, expected 1`);
        return verdict(problems, list);
      },
    }),
  ];
}

/** Every `institutional.transfer.*` and `institutional.memo.*` check except the memo length (rules.ts). */
export function institutionalTransferChecks(): Check[] {
  return [...lifecycleChecks(), ...memoChecks(), ...recoveryChecks()];
}
