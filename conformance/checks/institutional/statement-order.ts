// The order of a statement's lines (D-240): newest stored first, whatever the direction or status, and pages
// continue that order. A fresh account gets its funding, then an outgoing, an incoming and an outgoing transfer,
// each sent after the previous one was answered, so the order the server stored them in is known here.
import type { Check, CheckContext } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import { verdict } from '../define.ts';
import { freshAddress } from '../explorer/support.ts';
import {
  contractProblems,
  defineCheck,
  fixture,
  inst,
  newAccount,
  settled,
  type AccountView,
  type Created,
  type Fixture,
} from './support.ts';

type Line = { txRef: string; direction: string; amount: string };

/** POST /transfers with the fixture's unrestricted key; the reference of the 201, or throws. */
async function sent(ctx: CheckContext, f: Fixture, from: AccountView, to: string, amount: string): Promise<string> {
  const body = { fromAccountId: from.id, to, amount };
  const res = await inst(ctx.target, 'POST', '/transfers', { bearer: f.full }, { body });
  if (res.status !== 201) throw new Error(`POST /transfers answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return (res.json as Created).txRef;
}

/** One page of the statement of `account`, with the contract problems of the answer. */
async function statement(ctx: CheckContext, f: Fixture, account: AccountView, query: string) {
  const res = await inst(ctx.target, 'GET', `/accounts/${account.id}/statement${query}`, { bearer: f.full });
  const problems = await contractProblems(ctx, 'GET /accounts/{id}/statement', res, 200, query || 'whole');
  return { res, problems, lines: ((res.json as { transactions?: Line[] } | undefined)?.transactions ?? []) as Line[] };
}

/** `txRef (direction amount)` of each line, for messages. */
const shown = (lines: readonly Line[]) => lines.map((l) => `${l.txRef} (${l.direction} ${l.amount})`).join(', ');

/** The statement order check. */
export function institutionalStatementOrderChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.statement.order',
      title:
        'A statement lists its lines newest stored first, whatever their direction, and its pages continue that order',
      source: { decision: 'D-240' },
      async run(ctx) {
        const f = await fixture(ctx.target);
        const account = await newAccount(ctx.target, { fund: '5.00' });
        // Oldest first: the funding (in), then out, in, out, each after the previous answer.
        const stored = [
          await sent(ctx, f, account, f.recipient.address, '0.11'),
          await sent(ctx, f, f.sender, account.address, '0.12'),
          await sent(ctx, f, account, freshAddress(), '0.13'),
        ];
        for (const txRef of stored) await settled(ctx.target, { bearer: f.full }, txRef);
        const whole = await statement(ctx, f, account, '');
        const problems = [...whole.problems];
        let last: HttpResult = whole.res;
        if (problems.length) return verdict(problems, last);
        const newestFirst = [...stored].reverse();
        const funding = whole.lines[3];
        if (
          whole.lines.length !== 4 ||
          whole.lines.slice(0, 3).some((l, i) => l.txRef !== newestFirst[i]) ||
          funding?.direction !== 'in' ||
          funding.amount !== '5.00'
        )
          problems.push(
            `the statement lists ${shown(whole.lines)}; stored newest first it is ${newestFirst.join(', ')} and then the funding (in 5.00)`,
          );
        const expected = whole.lines.map((l) => l.txRef);
        for (const page of [1, 2]) {
          const paged = await statement(ctx, f, account, `?page=${page}&limit=2`);
          last = paged.res;
          problems.push(...paged.problems);
          const want = expected.slice((page - 1) * 2, page * 2);
          if (paged.lines.map((l) => l.txRef).join() !== want.join())
            problems.push(
              `page ${page} of 2 lines lists ${shown(paged.lines)}; the whole statement has ${want.join(', ')} there`,
            );
        }
        return verdict(problems, last);
      },
    }),
  ];
}
