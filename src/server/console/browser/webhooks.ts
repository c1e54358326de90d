/**
 * Webhooks (D-271): endpoints with their accounts, a secret set or rotated and shown once, the deliveries with
 * their state (filterable to DEAD), the attempts of one delivery, and redelivery (D-060).
 */
import {
  adminCreateWebhookEndpoint,
  adminGetWebhookDelivery,
  adminListWebhookDeliveries,
  adminListWebhookEndpoints,
  adminRedeliverWebhook,
  adminSetWebhookSecret,
  type DeliveryStatus,
  type WebhookDelivery,
} from '@svckit/sdk/admin';
import { zDeliveryStatus } from '@svckit/sdk/admin/zod';
import { announce, showIn } from './accounts.ts';
import { answer, client } from './api.ts';
import { button, choice, field, form, h, listOf, pager, shownOnce, table, text } from './dom.ts';

/** A new secret: `whsec_` and 27 random bytes, base64url (43 characters; D-060 asks 32 to 256 printable). */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(27));
  return `whsec_${btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')}`;
}

export async function endpointsView(main: HTMLElement, rerender: () => void): Promise<void> {
  const { endpoints } = await answer(adminListWebhookEndpoints({ client }));
  const error = h('p', { class: 'error', role: 'alert' });
  const rows = endpoints.map((e) => [
    h('code', {}, e.id),
    e.url,
    e.accountIds.join(', '),
    e.events.join(', '),
    e.enabled ? 'enabled' : 'disabled',
    e.hasSecret ? `set ${e.secretUpdatedAt ?? ''}` : 'none (nothing is sent)',
  ]);
  const create = form(
    'Register a webhook endpoint',
    [
      field('URL (https)', { name: 'url', type: 'url', required: true }),
      field('Account ids (comma-separated)', { name: 'accountIds', required: true }),
      field('Description (optional)', { name: 'description' }),
    ],
    'Register endpoint',
    async (data) => {
      const description = text(data, 'description');
      const created = await answer(
        adminCreateWebhookEndpoint({
          client,
          body: {
            url: text(data, 'url'),
            accountIds: listOf(data.get('accountIds')),
            ...(description ? { description } : {}),
          },
        }),
      );
      rerender();
      announce(`Registered endpoint ${created.id}; set its secret to start deliveries.`);
    },
  );
  const select = h('select', { id: 'secret-endpoint', name: 'id', required: true });
  for (const e of endpoints) select.append(h('option', { value: e.id }, e.url));
  const secret = form(
    'Set or rotate an endpoint secret',
    [
      h('div', { class: 'field' }, h('label', { for: select.id }, 'Endpoint'), select),
      field('Seconds the previous secret stays valid (optional)', { name: 'grace', type: 'number', min: '0' }),
      h('p', { class: 'hint' }, 'The page makes a new random secret and shows it once.'),
    ],
    'Set new secret',
    async (data) => {
      const value = newSecret();
      const grace = text(data, 'grace');
      await answer(
        adminSetWebhookSecret({
          client,
          path: { id: text(data, 'id') },
          body: { secret: value, ...(grace ? { gracePeriodSeconds: Number(grace) } : {}) },
        }),
      );
      await endpointsView(main, rerender);
      main.prepend(shownOnce('Webhook secret', value));
      announce('Secret set.');
    },
  );
  main.replaceChildren(
    h('h2', {}, 'Webhook endpoints'),
    table('Webhook endpoints', ['Id', 'URL', 'Accounts', 'Events', 'State', 'Secret'], rows),
    error,
    create,
    secret,
  );
}

const LIMIT = 20;

export async function deliveriesView(
  main: HTMLElement,
  rerender: () => void,
  filter: { status?: DeliveryStatus; page: number } = { page: 1 },
): Promise<void> {
  const list = await answer(
    adminListWebhookDeliveries({
      client,
      query: { page: filter.page, limit: LIMIT, ...(filter.status ? { status: filter.status } : {}) },
    }),
  );
  const error = h('p', { class: 'error', role: 'alert' });
  const attempts = h('div', { id: 'attempts' });
  const rows = list.deliveries.map((d) => [
    h('code', {}, d.id),
    d.event,
    h('span', { class: `state ${d.status}` }, d.status.toUpperCase()),
    String(d.round),
    String(d.attempts.length),
    d.nextAttemptAt ?? '',
    h(
      'span',
      { class: 'row' },
      button('Attempts', `Attempts of delivery ${d.id}`, async () => showAttempts(attempts, d.id), error),
      d.status === 'dead'
        ? button(
            'Redeliver',
            `Redeliver ${d.id}`,
            async () => {
              const again = await answer(adminRedeliverWebhook({ client, path: { id: d.id } }));
              await deliveriesView(main, rerender, filter);
              announce(`Delivery ${again.id} is ${again.status} again (round ${again.round}).`);
            },
            error,
          )
        : null,
    ),
  ]);
  const status = choice(
    'Show deliveries',
    'status',
    [['', 'all'], ...zDeliveryStatus.options.map((s) => [s, s.toUpperCase()] as [string, string])],
    filter.status ?? '',
  );
  status.select.addEventListener('change', () => {
    const chosen = status.select.value as DeliveryStatus | '';
    deliveriesView(main, rerender, { page: 1, ...(chosen ? { status: chosen } : {}) })
      .then(() => (main.querySelector('select') as HTMLElement | null)?.focus())
      .catch(showIn(error));
  });
  main.replaceChildren(
    h('h2', {}, 'Webhook deliveries'),
    status,
    table(
      filter.status ? `Webhook deliveries (${filter.status.toUpperCase()})` : 'Webhook deliveries',
      ['Id', 'Event', 'State', 'Round', 'Attempts', 'Next attempt', ''],
      rows,
    ),
    pager(
      filter.page,
      LIMIT,
      list.total,
      (page) => void deliveriesView(main, rerender, { ...filter, page }).catch(showIn(error)),
    ),
    error,
    attempts,
  );
}

async function showAttempts(where: HTMLElement, id: string): Promise<void> {
  const delivery: WebhookDelivery = await answer(adminGetWebhookDelivery({ client, path: { id } }));
  where.replaceChildren(
    h('h3', { tabindex: '-1' }, `Attempts of ${delivery.id} (${delivery.event}, ${delivery.status.toUpperCase()})`),
    table(
      'Attempts',
      ['Round.number', 'Started', 'Duration', 'HTTP status', 'Outcome', 'Error'],
      delivery.attempts.map((a) => [
        `${a.round}.${a.number}`,
        a.startedAt,
        `${a.durationMs} ms`,
        a.responseStatus === null ? '' : String(a.responseStatus),
        a.outcome,
        a.error ?? '',
      ]),
    ),
  );
  (where.querySelector('h3') as HTMLElement).focus();
}
