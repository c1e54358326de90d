/** The chain (D-271): the sender allow-list (D-152) and the QBFT validators and votes. */
import {
  adminAddChainAccount,
  adminListChainAccounts,
  adminListValidators,
  adminListValidatorVotes,
  adminProposeValidatorVote,
  adminRemoveChainAccount,
} from '@svckit/sdk/admin';
import { announce, showIn } from './accounts.ts';
import { answer, client } from './api.ts';
import { button, choice, field, form, h, pager, table, text } from './dom.ts';

const LIMIT = 20;

export async function chainView(main: HTMLElement, rerender: () => void, page = 1): Promise<void> {
  const error = h('p', { class: 'error', role: 'alert' });
  const allowed = await answer(adminListChainAccounts({ client, query: { page, limit: LIMIT } }));
  const rows = allowed.accounts.map((a) => [
    h('code', {}, a.address),
    a.reason,
    a.addedAt,
    a.reason === 'external'
      ? button(
          'Remove',
          `Remove ${a.address} from the allow-list`,
          async () => {
            await answer(adminRemoveChainAccount({ client, path: { address: a.address } }));
            rerender();
            announce(`Removed ${a.address}.`);
          },
          error,
        )
      : '',
  ]);
  const add = form(
    'Allow a sender',
    [
      field('Address (0x…)', { name: 'address', required: true, spellcheck: 'false' }),
      field('Fund with (units, optional)', { name: 'amount', inputmode: 'decimal' }),
    ],
    'Allow sender',
    async (data) => {
      const amount = text(data, 'amount');
      const added = await answer(
        adminAddChainAccount({ client, body: { address: text(data, 'address'), ...(amount ? { amount } : {}) } }),
      );
      rerender();
      announce(`Allowed ${added.address}.`);
    },
  );
  const sections: HTMLElement[] = [
    h('h2', {}, 'Chain'),
    h('p', {}, 'Funding address: ', h('code', {}, allowed.fundingAddress)),
    table('Sender allow-list', ['Address', 'Reason', 'Added', ''], rows),
    pager(page, LIMIT, allowed.total, (next) => void chainView(main, rerender, next).catch(showIn(error))),
    error,
    add,
  ];
  // The validators and votes exist on a QBFT chain only; elsewhere the server's error says why.
  try {
    const validators = await answer(adminListValidators({ client }));
    const { votes } = await answer(adminListValidatorVotes({ client }));
    sections.push(
      h('h3', {}, 'QBFT validators'),
      h(
        'p',
        {},
        `Block ${validators.blockNumber}: n = ${validators.n}, f = ${validators.f}, threshold ${validators.threshold}, vote threshold ${validators.voteThreshold}.`,
      ),
      table(
        'Validators',
        ['Address'],
        validators.validators.map((v) => [h('code', {}, v)]),
      ),
      table(
        'Pending votes',
        ['Validator', 'Vote', 'Proposed'],
        votes.map((v) => [h('code', {}, v.validator), v.add ? 'add' : 'remove', v.proposedAt]),
      ),
      form(
        'Propose a validator vote',
        [
          field('Validator address (0x…)', { name: 'validator', required: true, spellcheck: 'false' }),
          choice('Vote', 'add', [
            ['true', 'add'],
            ['false', 'remove'],
          ]),
        ],
        'Propose vote',
        async (data) => {
          await answer(
            adminProposeValidatorVote({
              client,
              body: { validator: text(data, 'validator'), add: text(data, 'add') === 'true' },
            }),
          );
          rerender();
          announce('Vote proposed.');
        },
      ),
    );
  } catch (failure) {
    sections.push(
      h('h3', {}, 'QBFT validators'),
      h('p', { class: 'note' }, failure instanceof Error ? failure.message : String(failure)),
    );
  }
  main.replaceChildren(...sections);
}
