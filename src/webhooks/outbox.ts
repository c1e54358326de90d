/**
 * The transactional outbox: an event is stored in the same database transaction as the state change that
 * causes it (a stored transfer, a status change, a pacs.008 intake, a return), together with one delivery
 * job per subscribed endpoint. Nothing is sent here; the dispatcher picks the jobs up after the commit, so
 * an event is never sent for a change that rolled back, and never lost for one that committed.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Placeholder } from 'drizzle-orm';
import type { PaymentEventPayload, PaymentEventType } from '@svckit/sdk/webhooks';
import type { Database } from '../storage/database.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../storage/schema.ts';

/** Payload keys in the contract's order, so the compact JSON reads like the contract's examples. */
const KEY_ORDER: (keyof PaymentEventPayload)[] = [
  'event',
  'uetr',
  'txRef',
  'status',
  'instrAmtCcy',
  'instrAmt',
  'settlAmtCcy',
  'settlAmt',
  'onChainTxHash',
  'sttlmTm',
  'dbtrInst',
  'cdtrInst',
  'failRsn',
];

/** D-020: "the body is the compact JSON of the payload (no trailing newline)". */
export function compactBody(payload: PaymentEventPayload): string {
  const ordered: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (payload[key] !== undefined) ordered[key] = payload[key];
  return JSON.stringify(ordered);
}

/** An event's payload: the contract's Payment event payload with its type and uetr. */
export type EventPayload = PaymentEventPayload & { event: PaymentEventType; uetr: string };

/** D-142: the accounts on either side of a payment; their institutions' endpoints receive its events. */
export type PaymentParties = {
  /** The account that pays. */
  debtorAccountId: string;
  /** The platform account credited; null when the creditor is an external address (one side only). */
  creditorAccountId: string | null;
};

/** An event to emit: its payload and the payment's parties (D-142). */
export type PartyEvent = { payload: EventPayload; parties: PaymentParties };

/**
 * Stores `payload` as an event and fans it out to every endpoint that is enabled, has a secret (D-060:
 * "an endpoint receives nothing until its secret is set"), subscribes to its type and belongs to an
 * institution on either side of the payment (D-142). Call it with the transaction of the state change.
 * Returns the event id and the number of delivery jobs created.
 */
export async function emitEvent(
  tx: Database,
  payload: EventPayload,
  parties: PaymentParties,
  now: Date,
): Promise<{ eventId: string; deliveries: number }> {
  const [emitted] = await emitEvents(tx, [{ payload, parties }], now);
  return emitted!;
}

/**
 * The delivery jobs of the events in the common table expression `stored_event` (id, type, uetr and the
 * payment's two accounts): one per endpoint that is enabled, has a secret (D-060), subscribes to the
 * event's type and names the debtor or the creditor account among its own (D-142; spec: "HTTPS endpoints
 * registered by the institution"; a null account matches no endpoint). D-039: X-SVC-Delivery is a UUID,
 * "the same on every attempt of one delivery"; spec: "| 1 | immediate |".
 */
const deliveriesOfStoredEvents = (at: string | Placeholder) => sql`
  insert into ${webhookDeliveries} (id, event_id, endpoint_id, event, uetr, status, round, attempts, next_attempt_at, created_at)
  select gen_random_uuid()::text, stored_event.id, endpoint.id, stored_event.type, stored_event.uetr, 'pending', 1, 0, ${at}::timestamptz, ${at}::timestamptz
  from stored_event join ${webhookEndpoints} as endpoint
    on endpoint.enabled and endpoint.secret is not null and endpoint.events @> jsonb_build_array(stored_event.type)
      and (endpoint.account_ids @> jsonb_build_array(stored_event.debtor_account_id)
        or endpoint.account_ids @> jsonb_build_array(stored_event.creditor_account_id))`;

/** {@link emitEvent} for several events at once, in one statement (the confirmer settles blocks at a time). */
export async function emitEvents(
  tx: Database,
  events: PartyEvent[],
  now: Date,
): Promise<{ eventId: string; deliveries: number }[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => randomUUID());
  const at = now.toISOString();
  const values = sql.join(
    events.map(
      ({ payload, parties }, i) =>
        sql`(${ids[i]}, ${payload.event}, ${payload.uetr}, ${compactBody(payload)}, ${parties.debtorAccountId}, ${parties.creditorAccountId}, ${at}::timestamptz)`,
    ),
    sql`, `,
  );
  // A data-modifying WITH runs once, whether or not it is read: the events and their fan-out in one statement.
  const result = (await tx.execute(sql`
    with stored_event as (
      insert into ${webhookEvents} (id, type, uetr, body, debtor_account_id, creditor_account_id, created_at) values ${values}
      returning id, type, uetr, debtor_account_id, creditor_account_id
    )
    ${deliveriesOfStoredEvents(at)}
    returning event_id`)) as unknown as { rows: { event_id: string }[] };
  const deliveries = new Map<string, number>();
  for (const { event_id } of result.rows) deliveries.set(event_id, (deliveries.get(event_id) ?? 0) + 1);
  return ids.map((eventId) => ({ eventId, deliveries: deliveries.get(eventId) ?? 0 }));
}

/**
 * The outbox writes of one event as two common table expressions, for a statement that also makes the
 * change itself: the event is stored once for each row of `guard` (a CTE's name, which returns the
 * payment's `debtor_account_id` and `creditor_account_id`, D-142), so only when that change happened. Data-modifying CTEs must sit at the top level, hence two of them rather than one nested.
 * Without `values` they hold placeholders (a statement built and prepared once), filled per event with
 * {@link eventCteValues}.
 */
export function eventCtes(db: Database, guard: string, values?: EventCteValues) {
  const v = (name: keyof EventCteValues) => (values ? values[name] : sql.placeholder(name));
  const guardCte = sql.identifier(guard);
  const storedEvent = db.$with('stored_event', { id: sql<string>`id` }).as(sql`
    insert into ${webhookEvents} (id, type, uetr, body, debtor_account_id, creditor_account_id, created_at)
    select ${v('event_id')}, ${v('event_type')}, ${v('event_uetr')}, ${v('event_body')}, ${guardCte}.debtor_account_id, ${guardCte}.creditor_account_id,
      ${v('event_at')}::timestamptz from ${guardCte}
    returning id, type, uetr, debtor_account_id, creditor_account_id`);
  const fanOut = db
    .$with('fan_out', { id: sql<string>`id` })
    .as(sql`${deliveriesOfStoredEvents(v('event_at'))} returning id`);
  return [storedEvent, fanOut] as const;
}

/** The values of {@link eventCtes} for one event (a new event id each time). */
export function eventCteValues(payload: EventPayload, now: Date) {
  return {
    event_id: randomUUID(),
    event_type: payload.event,
    event_uetr: payload.uetr,
    event_body: compactBody(payload),
    event_at: now.toISOString(),
  };
}

type EventCteValues = ReturnType<typeof eventCteValues>;
