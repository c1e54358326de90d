// Surface A request rules: paging bounds and defaults (D-025), the memo length (spec "at most 512
// characters"), amount precision and bounds (D-033, D-026), singleLimit, dailyLimit, balance and account
// status (D-026, D-001), and the Idempotency-Key of POST /transfers (D-046).
import type { Check, CheckContext } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import { verdict } from '../define.ts';
import {
  adminJson,
  codeOf,
  contractProblems,
  defineCheck,
  fixture,
  inst,
  newAccount,
  settled,
  smallAmount,
  whileHeld,
  WITH_ADMIN,
  WITH_REFERENCE,
  type Created,
  type Operation,
} from './support.ts';

/** The three paged lists and a path of each for the fixture's sender. */
const lists = (senderId: string): [Operation, string][] => [
  ['GET /accounts/{id}/statement', `/accounts/${senderId}/statement`],
  ['GET /transfers', `/transfers?accountId=${senderId}`],
  ['GET /accounts', '/accounts'],
];
const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** Posts a transfer from the fixture's sender with `body` overrides, answering the result. */
async function post(
  ctx: CheckContext,
  override: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const f = await fixture(ctx.target);
  const body = { fromAccountId: f.sender.id, to: f.recipient.address, amount: smallAmount(), ...override };
  return inst(ctx.target, 'POST', '/transfers', { bearer: f.full }, { body, headers });
}

/** Expects 400 (with `code` when given) from every case. */
async function refusals(ctx: CheckContext, cases: [string, () => Promise<HttpResult>][], code?: string) {
  const problems: string[] = [];
  let last: HttpResult | undefined;
  for (const [what, send] of cases) {
    last = await send();
    problems.push(...(await contractProblems(ctx, 'POST /transfers', last, 400, what)));
    if (code && last.status === 400 && codeOf(last) !== code)
      problems.push(`${what}: expected code ${code}, got ${JSON.stringify(codeOf(last))}`);
  }
  return { problems, last };
}

/** Paging (D-025). */
function pagingChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.paging.bounds',
      title: 'limit 0, 201 or "abc" and page 0, -1 or 1.5 get 400 on every paged list (never clamped)',
      source: { decision: 'D-025' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const problems: string[] = [];
        let last: HttpResult | undefined;
        for (const [operation, path] of lists(f.sender.id)) {
          for (const query of ['limit=0', 'limit=201', 'limit=abc', 'page=0', 'page=-1', 'page=1.5']) {
            last = await inst(ctx.target, 'GET', join(path, query), { bearer: f.full });
            problems.push(...(await contractProblems(ctx, operation, last, 400, query)));
          }
        }
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.paging.past_end',
      title: 'A page past the last one answers 200 with an empty list and the true total',
      source: { decision: 'D-025' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const problems: string[] = [];
        let last: HttpResult | undefined;
        for (const [operation, path] of lists(f.sender.id)) {
          const first = await inst(ctx.target, 'GET', join(path, 'limit=1'), { bearer: f.full });
          problems.push(...(await contractProblems(ctx, operation, first, 200, 'limit 1')));
          const total = (first.json as { total?: number }).total ?? 0;
          last = await inst(ctx.target, 'GET', join(path, `limit=1&page=${total + 5}`), { bearer: f.full });
          problems.push(...(await contractProblems(ctx, operation, last, 200, `page ${total + 5} of ${total}`)));
          const body = last.json as { total?: number; page?: number; [k: string]: unknown };
          const items = Object.values(body).find(Array.isArray) as unknown[] | undefined;
          if (last.status === 200 && (items?.length !== 0 || body.total !== total || body.page !== total + 5)) {
            problems.push(
              `${operation} page ${total + 5}: expected an empty list, total ${total} and page ${total + 5}, got ${JSON.stringify(body).slice(0, 200)}`,
            );
          }
        }
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.paging.defaults',
      title:
        'Pages are 1-based with default page 1 and limit 50; limit 200 is accepted; consecutive pages tile the list',
      source: { quote: 'query page (integer, 1-based, default 1), limit (integer, default 50, maximum 200)' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const problems: string[] = [];
        const op = 'GET /accounts/{id}/statement' as const;
        const path = `/accounts/${f.sender.id}/statement`;
        const get = async (query: string) => {
          const res = await inst(ctx.target, 'GET', `${path}${query}`, { bearer: f.full });
          problems.push(...(await contractProblems(ctx, op, res, 200, query || 'no query')));
          return res.json as { page: number; limit: number; total: number; transactions: { txRef: string }[] };
        };
        const plain = await get('');
        if (plain.page !== 1 || plain.limit !== 50)
          problems.push(`defaults: expected page 1 and limit 50, got page ${plain.page}, limit ${plain.limit}`);
        const max = await get('?limit=200');
        if (max.limit !== 200) problems.push(`limit 200: the page says limit ${max.limit}`);
        const two = await get('?page=1&limit=2');
        const [p1, p2] = [await get('?page=1&limit=1'), await get('?page=2&limit=1')];
        const tiled = [...p1.transactions, ...p2.transactions].map((t) => t.txRef).join();
        if (two.total >= 2 && tiled !== two.transactions.map((t) => t.txRef).join())
          problems.push(
            `pages 1 and 2 of limit 1 (${tiled}) differ from page 1 of limit 2 (${two.transactions.map((t) => t.txRef).join()})`,
          );
        if (two.total < 2)
          problems.push(
            `the sender's statement has ${two.total} lines; at least 2 (funding and a transfer) were expected`,
          );
        return verdict(problems);
      },
    }),
  ];
}

/** Memo, amount and the account's limits. */
function transferRuleChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.memo.length',
      title: 'A memo of 513 characters gets 400; 512 characters (also 512 two-byte characters) are accepted',
      source: { quote: 'at most 512 characters' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const problems: string[] = [];
        const long = await post(ctx, { memo: 'm'.repeat(513) });
        problems.push(...(await contractProblems(ctx, 'POST /transfers', long, 400, 'memo of 513 characters')));
        for (const memo of ['m'.repeat(512), 'ü'.repeat(512)]) {
          const res = await post(ctx, { memo });
          problems.push(...(await contractProblems(ctx, 'POST /transfers', res, 201, `memo of 512 × "${memo[0]}"`)));
        }
        return verdict(problems, long);
      },
    }),
    defineCheck({
      id: 'institutional.amount.precision',
      title: 'amount "1.234" gets 400 INVALID_AMOUNT (never rounded); "0.5" and "0.05" are accepted',
      source: { decision: 'D-033' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const { problems, last } = await refusals(
          ctx,
          [
            ['"1.234"', () => post(ctx, { amount: '1.234' })],
            ['"0.001"', () => post(ctx, { amount: '0.001' })],
          ],
          'INVALID_AMOUNT',
        );
        for (const amount of ['0.5', '0.05'])
          problems.push(
            ...(await contractProblems(ctx, 'POST /transfers', await post(ctx, { amount }), 201, `"${amount}"`)),
          );
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.amount.bounds',
      title: 'amount 0, negative, a JSON number, exponent form or 16 integer digits gets 400',
      source: { decision: 'D-026' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const cases = ['0', '0.00', '-1', '1e3', ' 1', '1234567890123456'].map(
          (amount) => [`"${amount}"`, () => post(ctx, { amount })] as [string, () => Promise<HttpResult>],
        );
        const { problems, last } = await refusals(ctx, [...cases, ['the number 1', () => post(ctx, { amount: 1 })]]);
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.transfers.bad_address',
      title: 'A recipient that is not a 0x-prefixed 20-byte address gets 400',
      source: { quote: 'recipient address, 0x-prefixed' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const bad = [f.recipient.address.slice(2), `${f.recipient.address}00`, '0x12', 'not an address'];
        const { problems, last } = await refusals(
          ctx,
          bad.map((to) => [`to ${to.slice(0, 12)}…`, () => post(ctx, { to })]),
        );
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.limits.single_and_daily',
      title:
        'Over singleLimit → 400 SINGLE_LIMIT_EXCEEDED; over the rest of dailyLimit → 400 DAILY_LIMIT_EXCEEDED; failed transfers do not count',
      source: { decision: 'D-026' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { singleLimit: 10, dailyLimit: 15, fund: '100.00' });
        const send = (amount: string) =>
          inst(
            ctx.target,
            'POST',
            '/transfers',
            { bearer: f.full },
            { body: { fromAccountId: account.id, to: f.recipient.address, amount } },
          );
        const problems: string[] = [];
        const single = await refusals(
          ctx,
          [['10.01 over singleLimit 10', () => send('10.01')]],
          'SINGLE_LIMIT_EXCEEDED',
        );
        problems.push(...single.problems);
        problems.push(
          ...(await contractProblems(ctx, 'POST /transfers', await send('10.00'), 201, 'exactly singleLimit')),
        );
        const daily = await refusals(
          ctx,
          [['5.01 after 10.00 of dailyLimit 15', () => send('5.01')]],
          'DAILY_LIMIT_EXCEEDED',
        );
        problems.push(...daily.problems);
        problems.push(
          ...(await contractProblems(ctx, 'POST /transfers', await send('5.00'), 201, 'the rest of dailyLimit')),
        );
        return verdict(problems, daily.last);
      },
    }),
    defineCheck({
      id: 'institutional.limits.balance',
      title: 'An amount above the spendable balance gets 400 INSUFFICIENT_BALANCE and creates nothing',
      source: { decision: 'D-026' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { fund: '2.00' });
        const send = (amount: string) =>
          inst(
            ctx.target,
            'POST',
            '/transfers',
            { bearer: f.full },
            { body: { fromAccountId: account.id, to: f.recipient.address, amount } },
          );
        const { problems, last } = await refusals(
          ctx,
          [['2.01 with 2.00', () => send('2.01')]],
          'INSUFFICIENT_BALANCE',
        );
        const list = await inst(ctx.target, 'GET', `/transfers?accountId=${account.id}`, { bearer: f.full });
        if ((list.json as { total?: number }).total !== 0)
          problems.push(`a refused transfer left ${(list.json as { total?: number }).total} record(s)`);
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.account_status',
      title: 'A suspended or closed account cannot send (400 ACCOUNT_NOT_APPROVED); approved again, it can',
      source: { decision: 'D-001' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { fund: '5.00' });
        const send = () =>
          inst(
            ctx.target,
            'POST',
            '/transfers',
            { bearer: f.full },
            { body: { fromAccountId: account.id, to: f.recipient.address, amount: '0.10' } },
          );
        await adminJson(ctx.target, 'PATCH', `/accounts/${account.id}`, { status: 'suspended' }, 200);
        const suspended = await refusals(ctx, [['suspended', send]], 'ACCOUNT_NOT_APPROVED');
        await adminJson(ctx.target, 'PATCH', `/accounts/${account.id}`, { status: 'approved' }, 200);
        suspended.problems.push(
          ...(await contractProblems(ctx, 'POST /transfers', await send(), 201, 'approved again')),
        );
        await adminJson(ctx.target, 'PATCH', `/accounts/${account.id}`, { status: 'closed' }, 200);
        const closed = await refusals(ctx, [['closed', send]], 'ACCOUNT_NOT_APPROVED');
        return verdict([...suspended.problems, ...closed.problems], closed.last);
      },
    }),
  ];
}

/** Idempotency-Key (D-046). */
function idempotencyChecks(): Check[] {
  const key = () => `conformance-${crypto.randomUUID()}`;
  return [
    defineCheck({
      id: 'institutional.idempotency.replay',
      title: 'The same Idempotency-Key and body answer the first response again (same txRef) and move no more money',
      source: { decision: 'D-046' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const count = async () =>
          (
            (await inst(ctx.target, 'GET', `/transfers?accountId=${f.sender.id}&limit=1`, { bearer: f.full })).json as {
              total: number;
            }
          ).total;
        const before = await count();
        const headers = { 'idempotency-key': key() };
        const amount = smallAmount();
        const first = await post(ctx, { amount }, headers);
        const problems = await contractProblems(ctx, 'POST /transfers', first, 201, 'first request');
        const again = await post(ctx, { amount }, headers);
        problems.push(...(await contractProblems(ctx, 'POST /transfers', again, 201, 'the same key and body')));
        if (problems.length) return verdict(problems, again);
        const [a, b] = [first.json as Created, again.json as Created];
        if (a.txRef !== b.txRef || a.txHash !== b.txHash)
          problems.push(`the retry created ${b.txRef} (${b.txHash}); the first was ${a.txRef} (${a.txHash})`);
        const after = await count();
        if (after !== before + 1)
          problems.push(`the sender has ${after - before} new transfers after two requests with one key; expected 1`);
        await settled(ctx.target, { bearer: f.full }, a.txRef);
        return verdict(problems, again);
      },
    }),
    defineCheck({
      id: 'institutional.idempotency.other_body',
      title: 'The same Idempotency-Key with another body gets 422 and creates nothing',
      source: { decision: 'D-046' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const headers = { 'idempotency-key': key() };
        const first = await post(ctx, { amount: '0.11' }, headers);
        const problems = await contractProblems(ctx, 'POST /transfers', first, 201, 'first request');
        const other = await post(ctx, { amount: '0.12' }, headers);
        problems.push(...(await contractProblems(ctx, 'POST /transfers', other, 422, 'the same key, another amount')));
        if (other.status === 422 && codeOf(other) !== 'IDEMPOTENCY_KEY_REUSED')
          problems.push(`expected code IDEMPOTENCY_KEY_REUSED, got ${JSON.stringify(codeOf(other))}`);
        return verdict(problems, other);
      },
    }),
    defineCheck({
      id: 'institutional.idempotency.in_progress',
      title:
        'The same Idempotency-Key while the first request is still in progress gets 409; afterwards the first response',
      source: { decision: 'D-046' },
      needs: WITH_REFERENCE,
      async run(ctx) {
        const headers = { 'idempotency-key': key() };
        const amount = smallAmount();
        const hold = await whileHeld(ctx.target, () => post(ctx, { amount }, headers));
        const first = hold.posting;
        const during = await post(ctx, { amount }, headers).finally(hold.release);
        const problems = await contractProblems(ctx, 'POST /transfers', during, 409, 'while the first is in progress');
        if (during.status === 409 && codeOf(during) !== 'IDEMPOTENCY_IN_PROGRESS')
          problems.push(`expected code IDEMPOTENCY_IN_PROGRESS, got ${JSON.stringify(codeOf(during))}`);
        const done = await first;
        problems.push(...(await contractProblems(ctx, 'POST /transfers', done, 201, 'the first request')));
        const after = await post(ctx, { amount }, headers);
        problems.push(...(await contractProblems(ctx, 'POST /transfers', after, 201, 'the same key afterwards')));
        if ((after.json as Created).txRef !== (done.json as Created).txRef)
          problems.push('the replay after completion names another txRef');
        return verdict(problems, during);
      },
    }),
  ];
}

/** Every `institutional.paging.*`, `institutional.memo.length`, `institutional.amount.*`, `institutional.limits.*`, `institutional.account_status` and `institutional.idempotency.*` check. */
export function institutionalRuleChecks(): Check[] {
  return [...pagingChecks(), ...transferRuleChecks(), ...idempotencyChecks()];
}
