/**
 * Delivery jobs as the administrator sees them (admin API: list with attempts, read one, redeliver a DEAD
 * one; D-060: "Redeliver answers 202, keeps the delivery id (receivers de-duplicate on it) and starts a new
 * round of 5 attempts; attempts carry round and number").
 */
import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import type { Database } from '../storage/database.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../storage/schema.ts';

/** A delivery with its attempts (oldest first) and its payload as delivered. */
export type DeliveryRecord = Omit<typeof webhookDeliveries.$inferSelect, 'attempts'> & {
  attempts: (typeof webhookAttempts.$inferSelect)[];
  attemptsInRound: number;
  body: string;
};

/**
 * D-142: the delivery's payment is on one of its endpoint's accounts now (a job from before endpoints had
 * owners, or of an account the endpoint no longer names, is never sent again).
 */
const ownedByEndpoint = sql`exists (
  select 1 from ${webhookEvents} as e join ${webhookEndpoints} as w on w.id = ${webhookDeliveries.endpointId}
  where e.id = ${webhookDeliveries.eventId}
    and (w.account_ids @> jsonb_build_array(e.debtor_account_id) or w.account_ids @> jsonb_build_array(e.creditor_account_id)))`;

/** Delivery queries. */
export class DeliveryStore {
  /** Works on `db`; times come from `clock`. */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** One page, newest first, filtered by status and endpoint. */
  async page(
    filter: { status?: string; endpointId?: string },
    page: number,
    limit: number,
  ): Promise<{ total: number; rows: DeliveryRecord[] }> {
    const conditions: SQL[] = [];
    if (filter.status) conditions.push(eq(webhookDeliveries.status, filter.status as 'pending'));
    if (filter.endpointId) conditions.push(eq(webhookDeliveries.endpointId, filter.endpointId));
    const where = conditions.length ? and(...conditions) : undefined;
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(webhookDeliveries).where(where);
    const rows = await this.db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit)
      .offset((page - 1) * limit);
    return { total, rows: await this.withAttempts(rows) };
  }

  /** One delivery by its id (the X-SVC-Delivery value). */
  async find(id: string): Promise<DeliveryRecord | undefined> {
    const rows = await this.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    return (await this.withAttempts(rows))[0];
  }

  /**
   * Puts a DEAD delivery back to pending, round + 1, first attempt due now (D-060). Returns the delivery, or
   * `{ notDead }` with its status when it is not DEAD, or undefined when there is none.
   */
  async redeliver(id: string): Promise<DeliveryRecord | { notDead: string } | { notOwned: true } | undefined> {
    const [row] = await this.db
      .update(webhookDeliveries)
      .set({
        status: 'pending',
        round: sqlRoundPlusOne(),
        attempts: 0,
        nextAttemptAt: dateOf(this.clock),
        leaseOwner: null,
        leaseUntil: null,
        deliveredAt: null,
      })
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'dead'), ownedByEndpoint))
      .returning();
    if (row) return (await this.withAttempts([row]))[0];
    const existing = await this.find(id);
    if (!existing) return undefined;
    return existing.status === 'dead' ? { notOwned: true } : { notDead: existing.status };
  }

  private async withAttempts(rows: (typeof webhookDeliveries.$inferSelect)[]): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const attempts = await this.db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, ids))
      .orderBy(asc(webhookAttempts.round), asc(webhookAttempts.number));
    const bodies = await this.db
      .select({ id: webhookEvents.id, body: webhookEvents.body })
      .from(webhookEvents)
      .where(inArray(webhookEvents.id, [...new Set(rows.map((r) => r.eventId))]));
    const bodyOf = new Map(bodies.map((b) => [b.id, b.body]));
    return rows.map((row) => {
      const own = attempts.filter((a) => a.deliveryId === row.id);
      return { ...row, attempts: own, attemptsInRound: row.attempts, body: bodyOf.get(row.eventId) ?? '{}' };
    });
  }
}

/** `round + 1`, computed by the database so concurrent redeliveries cannot both read the old round. */
const sqlRoundPlusOne = () => sql`${webhookDeliveries.round} + 1`;
