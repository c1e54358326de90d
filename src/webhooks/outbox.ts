/**
 * The transactional outbox: an event is stored in the same database transaction as the state change that
 * causes it (a stored transfer, a status change, a pacs.008 intake, a return), together with one delivery
 * job per subscribed endpoint. Nothing is sent here; the dispatcher picks the jobs up after the commit, so
 * an event is never sent for a change that rolled back, and never lost for one that committed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { PaymentEventPayload, PaymentEventType } from '../../generated/webhooks/types.gen';
import type { Database } from '../storage/database.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../storage/schema.ts';

/** Payload keys in the contract's order, so the compact JSON reads like the contract's examples. */
const KEY_ORDER: (keyof PaymentEventPayload)[] = [
  'event', 'uetr', 'txRef', 'status', 'instrAmtCcy', 'instrAmt', 'settlAmtCcy', 'settlAmt', 'onChainTxHash', 'sttlmTm', 'dbtrInst', 'cdtrInst', 'failRsn',
];

/** D-020: "the body is the compact JSON of the payload (no trailing newline)". */
export function compactBody(payload: PaymentEventPayload): string {
  const ordered: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (payload[key] !== undefined) ordered[key] = payload[key];
  return JSON.stringify(ordered);
}

/**
 * Stores `payload` as an event and fans it out to every endpoint that is enabled, has a secret (D-060:
 * "an endpoint receives nothing until its secret is set") and subscribes to its type. Call it with the
 * transaction of the state change. Returns the event id and the number of delivery jobs created.
 */
export async function emitEvent(tx: Database, payload: PaymentEventPayload & { event: PaymentEventType; uetr: string }, now: Date): Promise<{ eventId: string; deliveries: number }> {
  const eventId = randomUUID();
  const at = now.toISOString();
  // One statement: the event and its fan-out (a data-modifying WITH runs once, whether or not it is read).
  // D-039: X-SVC-Delivery is a UUID, "the same on every attempt of one delivery"; spec: "| 1 | immediate |".
  const result = (await tx.execute(sql`
    with stored_event as (
      insert into ${webhookEvents} (id, type, uetr, body, created_at)
      values (${eventId}, ${payload.event}, ${payload.uetr}, ${compactBody(payload)}, ${at})
    )
    insert into ${webhookDeliveries} (id, event_id, endpoint_id, event, uetr, status, round, attempts, next_attempt_at, created_at)
    select gen_random_uuid()::text, ${eventId}, endpoint.id, ${payload.event}, ${payload.uetr}, 'pending', 1, 0, ${at}, ${at}
    from ${webhookEndpoints} as endpoint
    where endpoint.enabled and endpoint.secret is not null and endpoint.events @> ${JSON.stringify([payload.event])}::jsonb
    returning id`)) as unknown as { rows: unknown[] };
  return { eventId, deliveries: result.rows.length };
}
