/** Accounts (D-271): list with paging, create, change limits and status, fund (D-061). */
import {
  adminCreateAccount,
  adminFundAccount,
  adminListAccounts,
  adminUpdateAccount,
  type Account,
} from '@svckit/sdk/admin';
import { zAccountStatus } from '@svckit/sdk/admin/zod';
import { answer, client } from './api.ts';
import { button, choice, field, form, h, pager, table, text } from './dom.ts';

const LIMIT = 20;

export async function accountsView(main: HTMLElement, rerender: () => void, page = 1): Promise<void> {
  const list = await answer(adminListAccounts({ client, query: { page, limit: LIMIT } }));
  const manage = h('div', { id: 'manage' });
  const rowError = h('p', { class: 'error', role: 'alert' });
  const rows = list.accounts.map((a) => [
    h('code', {}, a.id),
    a.reference,
    a.email,
    a.status,
    a.balance,
    `${a.dailyLimit} / ${a.singleLimit}`,
    button(
      'Manage',
      `Manage account ${a.email}`,
      async () => {
        manage.replaceChildren(...manageForms(a, rerender));
        manage.querySelector('input, select')?.setAttribute('autofocus', '');
        (manage.querySelector('select') as HTMLElement | null)?.focus();
      },
      rowError,
    ),
  ]);
  const create = form(
    'Create an account',
    [
      field('Email', { name: 'email', type: 'email', required: true, autocomplete: 'off' }),
      field('Daily limit (units)', { name: 'dailyLimit', type: 'number', min: '0', required: true, value: '1000000' }),
      field('Single limit (units)', { name: 'singleLimit', type: 'number', min: '0', required: true, value: '100000' }),
      field('Reference (optional)', { name: 'reference' }),
    ],
    'Create account',
    async (data) => {
      const reference = text(data, 'reference');
      const account = await answer(
        adminCreateAccount({
          client,
          body: {
            email: text(data, 'email'),
            dailyLimit: Number(text(data, 'dailyLimit')),
            singleLimit: Number(text(data, 'singleLimit')),
            ...(reference ? { reference } : {}),
          },
        }),
      );
      rerender();
      announce(`Created account ${account.email} (${account.id}).`);
    },
  );
  main.replaceChildren(
    h('h2', {}, 'Accounts'),
    table('Accounts', ['Id', 'Reference', 'Email', 'Status', 'Balance', 'Daily / single limit', ''], rows),
    pager(page, LIMIT, list.total, (next) => void accountsView(main, rerender, next).catch(showIn(rowError))),
    rowError,
    manage,
    create,
  );
}

function manageForms(a: Account, rerender: () => void): HTMLElement[] {
  const update = form(
    `Change ${a.email}`,
    [
      choice(
        'Status',
        'status',
        zAccountStatus.options.map((s) => [s, s] as [string, string]),
        a.status,
      ),
      field('Daily limit (units)', { name: 'dailyLimit', type: 'number', min: '0', value: String(a.dailyLimit) }),
      field('Single limit (units)', { name: 'singleLimit', type: 'number', min: '0', value: String(a.singleLimit) }),
    ],
    'Save changes',
    async (data) => {
      const status = text(data, 'status') as Account['status'];
      const body: { status?: Account['status']; dailyLimit?: number; singleLimit?: number } = {};
      if (status !== a.status) body.status = status;
      if (Number(text(data, 'dailyLimit')) !== a.dailyLimit) body.dailyLimit = Number(text(data, 'dailyLimit'));
      if (Number(text(data, 'singleLimit')) !== a.singleLimit) body.singleLimit = Number(text(data, 'singleLimit'));
      await answer(adminUpdateAccount({ client, path: { id: a.id }, body }));
      rerender();
      announce(`Saved ${a.email}.`);
    },
  );
  const fund = form(
    `Fund ${a.email}`,
    [field('Amount (units, e.g. 100.00)', { name: 'amount', required: true, inputmode: 'decimal' })],
    'Fund account',
    async (data) => {
      const funded = await answer(
        adminFundAccount({ client, path: { id: a.id }, body: { amount: text(data, 'amount') } }),
      );
      rerender();
      announce(`Funded ${a.email}: balance ${funded.balance} (transaction ${funded.txHash}).`);
    },
  );
  return [update, fund];
}

/** Puts a message in the page's live status region. */
export function announce(message: string): void {
  document.getElementById('status')!.textContent = message;
}

/** Shows a failure in `element`. */
export const showIn = (element: HTMLElement) => (failure: unknown) => {
  element.textContent = failure instanceof Error ? failure.message : String(failure);
};
