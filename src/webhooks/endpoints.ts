/**
 * Webhook endpoints and their signing secrets (D-019: registered by an administrator; D-047: rotation
 * with a grace period; D-060: nothing is sent before a secret is set, a disabled endpoint gets no new
 * deliveries, deleting one marks its pending deliveries dead and keeps their history; D-142: an endpoint
 * belongs to the institution of the accounts it names).
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { EventTypeSchema } from '@svckit/sdk/admin/schemas';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import { resourceId } from '../ledger/ids.ts';
import type { Database } from '../storage/database.ts';
import { accounts, webhookDeliveries, webhookEndpoints } from '../storage/schema.ts';
import type { WebhookSecretBox } from './secret-box.ts';

/** A stored endpoint (secrets included, sealed (D-130): never leaves the server). */
export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The five event types (spec "Webhook events (B)"); D-019: the default subscription. */
export const EVENT_TYPES = EventTypeSchema.enum;

/** Endpoint storage. */
export class EndpointStore {
  /** Works on `db`; times come from `clock`; `secrets` seals what {@link setSecret} stores (D-130). */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly secrets: WebhookSecretBox,
  ) {}

  /** Registers an endpoint for the institution of `accountIds` (D-142), without a secret yet. */
  async create(input: {
    url: string;
    accountIds: string[];
    events?: string[];
    description?: string;
    enabled?: boolean;
  }): Promise<EndpointRow> {
    const now = dateOf(this.clock);
    const [row] = await this.db
      .insert(webhookEndpoints)
      .values({
        id: resourceId('whe'),
        url: input.url,
        description: input.description ?? '',
        events: input.events ?? [...EVENT_TYPES],
        accountIds: input.accountIds,
        enabled: input.enabled ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  }

  /** Every endpoint, newest first. */
  list(): Promise<EndpointRow[]> {
    return this.db.select().from(webhookEndpoints).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  }

  /** One endpoint, if it exists. */
  async find(id: string): Promise<EndpointRow | undefined> {
    const [row] = await this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    return row;
  }

  /** The position in `ids` of the first id that names no account, or undefined when all do (D-142). */
  async firstUnknownAccount(ids: readonly string[]): Promise<number | undefined> {
    if (ids.length === 0) return undefined;
    const found = new Set(
      (
        await this.db
          .select({ id: accounts.id })
          .from(accounts)
          .where(inArray(accounts.id, [...ids]))
      ).map((r) => r.id),
    );
    const index = ids.findIndex((id) => !found.has(id));
    return index < 0 ? undefined : index;
  }

  /** Changes url, events, accountIds, description or enabled; undefined when there is no such endpoint. */
  async update(
    id: string,
    change: { url?: string; events?: string[]; accountIds?: string[]; description?: string; enabled?: boolean },
  ): Promise<EndpointRow | undefined> {
    const [row] = await this.db
      .update(webhookEndpoints)
      .set({ ...change, updatedAt: dateOf(this.clock) })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    return row;
  }

  /**
   * Sets the secret. D-047: the previous one keeps signing for `graceSeconds` (0 drops it at once); a
   * previous secret still in its grace period is replaced by the one being rotated out.
   */
  async setSecret(id: string, secret: string, graceSeconds: number): Promise<EndpointRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for('update');
      if (!current) return undefined;
      const now = dateOf(this.clock);
      const keepPrevious =
        current.secret !== null && graceSeconds > 0 && this.secrets.open(id, current.secret) !== secret;
      const [row] = await tx
        .update(webhookEndpoints)
        .set({
          secret: this.secrets.seal(id, secret),
          previousSecret: keepPrevious ? current.secret : null,
          previousSecretExpiresAt: keepPrevious ? new Date(now.getTime() + graceSeconds * 1000) : null,
          secretUpdatedAt: now,
          updatedAt: now,
        })
        .where(eq(webhookEndpoints.id, id))
        .returning();
      return row;
    });
  }

  /** Deletes the endpoint and its secrets; its pending deliveries become dead, history stays (D-060). */
  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const deleted = await tx
        .delete(webhookEndpoints)
        .where(eq(webhookEndpoints.id, id))
        .returning({ id: webhookEndpoints.id });
      if (deleted.length === 0) return false;
      await tx
        .update(webhookDeliveries)
        .set({ status: 'dead', nextAttemptAt: null, leaseOwner: null, leaseUntil: null })
        .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.status, 'pending')));
      return true;
    });
  }
}
