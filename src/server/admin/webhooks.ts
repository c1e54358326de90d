/**
 * Admin handlers for webhook endpoints, secrets and deliveries (D-019 registration, D-047 rotation with a
 * grace period, D-060 endpoint and redelivery rules, D-039 delivery ids). Secrets are never returned.
 */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from '@svckit/sdk/admin';
import {
  zAdminCreateWebhookEndpointBody,
  zAdminDeleteWebhookEndpointPath,
  zAdminGetWebhookDeliveryPath,
  zAdminGetWebhookEndpointPath,
  zAdminListWebhookDeliveriesQuery,
  zAdminRedeliverWebhookPath,
  zAdminSetWebhookSecretBody,
  zAdminSetWebhookSecretPath,
  zAdminUpdateWebhookEndpointBody,
  zAdminUpdateWebhookEndpointPath,
} from '@svckit/sdk/admin/zod';
import type { Clock } from '@svckit/sdk/clock';
import type { DeliveryRecord } from '../../webhooks/deliveries.ts';
import type { EndpointRow } from '../../webhooks/endpoints.ts';
import { refusedLiteral } from '../../webhooks/destination.ts';
import type { WebhookRuntime } from '../../webhooks/runtime.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict, requireSome, requireUnique } from '../http/guards.ts';
import { withIntegers } from '../http/query.ts';

type Handlers = Pick<
  RouteHandlers,
  | 'adminCreateWebhookEndpoint'
  | 'adminListWebhookEndpoints'
  | 'adminGetWebhookEndpoint'
  | 'adminUpdateWebhookEndpoint'
  | 'adminDeleteWebhookEndpoint'
  | 'adminSetWebhookSecret'
  | 'adminListWebhookDeliveries'
  | 'adminGetWebhookDelivery'
  | 'adminRedeliverWebhook'
>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const ENDPOINT_ID = { id: 'a webhook endpoint id (whe_ + 26 Crockford base32)' };
const DELIVERY_ID = { id: 'a delivery id (a lower-case UUID, the X-SVC-Delivery value)' };
const ENDPOINT_FIELDS = {
  url: 'https URL',
  description: 'a string of at most 500 characters',
  enabled: 'true or false',
  events: 'a non-empty list of event types',
  accountIds: 'a list of 1 to 100 account ids (acc_ + 26 Crockford base32)',
  'accountIds[]': 'an account id (acc_ + 26 Crockford base32)',
};

/** D-019, D-047: the endpoint without its secrets; a grace period that has ended shows as null. */
export function endpointView(row: EndpointRow, now: number): WebhookEndpoint {
  const graceEnds =
    row.previousSecret !== null && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now
      ? row.previousSecretExpiresAt
      : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpoint['events'],
    accountIds: row.accountIds,
    enabled: row.enabled,
    hasSecret: row.secret !== null,
    secretUpdatedAt: iso(row.secretUpdatedAt),
    previousSecretExpiresAt: iso(graceEnds),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** D-060: the delivery with every attempt (round and number) and the payload as delivered. */
export function deliveryView(record: DeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    endpointId: record.endpointId,
    event: record.event as WebhookDelivery['event'],
    uetr: record.uetr,
    status: record.status,
    round: record.round,
    nextAttemptAt: record.status === 'pending' ? iso(record.nextAttemptAt) : null,
    createdAt: record.createdAt.toISOString(),
    deliveredAt: record.status === 'delivered' ? iso(record.deliveredAt) : null,
    attempts: record.attempts.map(
      (a): DeliveryAttempt => ({
        round: a.round,
        number: a.number,
        startedAt: a.startedAt.toISOString(),
        durationMs: a.durationMs,
        responseStatus: a.responseStatus,
        error: a.error,
        outcome: a.outcome,
      }),
    ),
    payload: JSON.parse(record.body) as Record<string, unknown>,
  };
}

/** D-060: 32 to 256 printable characters; the error gives the length, never the secret. */
function checkSecretText(secret: unknown): void {
  if (typeof secret !== 'string' || /^[\x21-\x7E]{32,256}$/.test(secret)) return;
  const got = /^[\x21-\x7E]*$/.test(secret)
    ? `${secret.length} characters`
    : `${secret.length} characters, not all printable without spaces`;
  throw new RestError(
    ErrorCode.INVALID_PARAMETER,
    `"secret" expected 32 to 256 printable characters without spaces, got ${got}`,
  );
}

/** The webhook handlers. */
export function webhookHandlers(webhooks: WebhookRuntime, clock: Clock): Handlers {
  const { endpoints, deliveries } = webhooks;
  /** D-142: the owner's accounts must exist; an id naming none would silently route nothing. */
  const checkAccounts = async (accountIds: string[] | undefined) => {
    requireUnique('accountIds', accountIds);
    const unknown = accountIds ? await endpoints.firstUnknownAccount(accountIds) : undefined;
    if (unknown !== undefined)
      throw new RestError(
        ErrorCode.UNKNOWN_ACCOUNT,
        `"accountIds[${unknown}]" expected an existing account, got "${accountIds![unknown]}"`,
      );
  };
  /** D-143: a literal non-public address is refused at once; a host name is checked at every attempt. */
  const checkUrl = (url: string | undefined) => {
    if (url === undefined || webhooks.allowPrivate) return;
    const literal = refusedLiteral(url);
    if (literal !== undefined)
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"url" expected a public address, got "${url}" (a loopback, private, link-local or reserved address)`,
      );
  };
  const existing = async (id: string) => {
    const row = await endpoints.find(id);
    if (!row) throw new RestError(ErrorCode.NOT_FOUND, `webhook endpoint ${id} not found`);
    return row;
  };
  return {
    adminCreateWebhookEndpoint: async (request, reply) => {
      const body = guard(strict(zAdminCreateWebhookEndpointBody), request.body, ENDPOINT_FIELDS);
      requireUnique('events', body.events);
      checkUrl(body.url);
      await checkAccounts(body.accountIds);
      const row = await endpoints.create(body);
      return reply.code(201).send(endpointView(row, clock.now()));
    },
    adminListWebhookEndpoints: async (_request, reply) => {
      return reply.code(200).send({ endpoints: (await endpoints.list()).map((row) => endpointView(row, clock.now())) });
    },
    adminGetWebhookEndpoint: async (request, reply) => {
      const { id } = guard(zAdminGetWebhookEndpointPath, request.params, ENDPOINT_ID);
      return reply.code(200).send(endpointView(await existing(id), clock.now()));
    },
    adminUpdateWebhookEndpoint: async (request, reply) => {
      const { id } = guard(zAdminUpdateWebhookEndpointPath, request.params, ENDPOINT_ID);
      const body = guard(strict(zAdminUpdateWebhookEndpointBody), request.body, ENDPOINT_FIELDS);
      requireSome(body, ['url', 'events', 'accountIds', 'description', 'enabled']);
      requireUnique('events', body.events);
      checkUrl(body.url);
      await checkAccounts(body.accountIds);
      const row = await endpoints.update(id, body);
      if (!row) throw new RestError(ErrorCode.NOT_FOUND, `webhook endpoint ${id} not found`);
      return reply.code(200).send(endpointView(row, clock.now()));
    },
    adminDeleteWebhookEndpoint: async (request, reply) => {
      const { id } = guard(zAdminDeleteWebhookEndpointPath, request.params, ENDPOINT_ID);
      if (!(await endpoints.delete(id))) throw new RestError(ErrorCode.NOT_FOUND, `webhook endpoint ${id} not found`);
      return reply.code(204).send();
    },
    adminSetWebhookSecret: async (request, reply) => {
      const { id } = guard(zAdminSetWebhookSecretPath, request.params, ENDPOINT_ID);
      checkSecretText((request.body as { secret?: unknown } | null)?.secret);
      const body = guard(strict(zAdminSetWebhookSecretBody), request.body, {
        secret: 'a string of 32 to 256 printable characters',
        gracePeriodSeconds: 'an integer from 0 to 604800',
      });
      const row = await endpoints.setSecret(id, body.secret, body.gracePeriodSeconds);
      if (!row) throw new RestError(ErrorCode.NOT_FOUND, `webhook endpoint ${id} not found`);
      return reply.code(200).send(endpointView(row, clock.now()));
    },
    adminListWebhookDeliveries: async (request, reply) => {
      const query = guard(strict(zAdminListWebhookDeliveriesQuery), withIntegers(request.query), {
        page: 'an integer from 1 to 999999999',
        limit: 'an integer from 1 to 200',
        endpointId: 'a webhook endpoint id (whe_ + 26 Crockford base32)',
      });
      const { total, rows } = await deliveries.page(
        {
          ...(query.status ? { status: query.status } : {}),
          ...(query.endpointId ? { endpointId: query.endpointId } : {}),
        },
        query.page,
        query.limit,
      );
      return reply.code(200).send({ total, page: query.page, limit: query.limit, deliveries: rows.map(deliveryView) });
    },
    adminGetWebhookDelivery: async (request, reply) => {
      const { id } = guard(zAdminGetWebhookDeliveryPath, request.params, DELIVERY_ID);
      const record = await deliveries.find(id);
      if (!record) throw new RestError(ErrorCode.NOT_FOUND, `delivery ${id} not found`);
      return reply.code(200).send(deliveryView(record));
    },
    adminRedeliverWebhook: async (request, reply) => {
      const { id } = guard(zAdminRedeliverWebhookPath, request.params, DELIVERY_ID);
      const outcome = await deliveries.redeliver(id);
      if (!outcome) throw new RestError(ErrorCode.NOT_FOUND, `delivery ${id} not found`);
      if ('notDead' in outcome)
        throw new RestError(
          ErrorCode.NOT_DEAD,
          `delivery ${id} is ${outcome.notDead}, only dead deliveries can be redelivered`,
        );
      if ('notOwned' in outcome)
        throw new RestError(
          ErrorCode.NOT_OWNED,
          `delivery ${id} is of a payment on none of its endpoint's accounts (D-142)`,
        );
      webhooks.wake();
      return reply.code(202).send(deliveryView(outcome));
    },
  };
}
