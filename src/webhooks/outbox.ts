/**
 * The transactional outbox: an event is stored in the same database transaction as the state change that
 * causes it (a stored transfer, a status change, a pacs.008 intake, a return), together with one delivery
 * job per subscribed endpoint. Nothing is sent here; the dispatcher picks the jobs up after the commit, so
 * an event is never sent for a change that rolled back, and never lost for one that committed.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
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
  await tx.insert(webhookEvents).values({ id: eventId, type: payload.event, uetr: payload.uetr, body: compactBody(payload), createdAt: now });
  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), isNotNull(webhookEndpoints.secret), sql`${webhookEndpoints.events} @> ${JSON.stringify([payload.event])}::jsonb`));
  if (endpoints.length > 0) {
    await tx.insert(webhookDeliveries).values(
      endpoints.map((endpoint) => ({
        // D-039: X-SVC-Delivery is a UUID, "the same on every attempt of one delivery".
        id: randomUUID(),
        eventId,
        endpointId: endpoint.id,
        event: payload.event,
        uetr: payload.uetr,
        status: 'pending' as const,
        round: 1,
        attempts: 0,
        // spec: "| 1 | immediate |"
        nextAttemptAt: now,
        createdAt: now,
      })),
    );
  }
  return { eventId, deliveries: endpoints.length };
}
