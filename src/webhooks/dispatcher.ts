/**
 * The webhook dispatcher: claims due delivery jobs, POSTs them signed, and records each attempt with the
 * delivery's next state (spec "Webhook delivery (B)" state table, "Retry policy").
 *
 * - Safe as several instances on one PostgreSQL database: a job is claimed with `FOR UPDATE SKIP LOCKED`
 *   and held by a lease (owner + expiry); the result is recorded only while the lease is still this
 *   instance's, so a job is never attempted twice for one schedule slot and never recorded twice.
 * - Durable: the whole schedule is in the database (`next_attempt_at`, `attempts`, `round`), so after a
 *   restart the jobs continue from their stored state. A job whose attempt was cut by a crash is taken again
 *   when its lease expires (at-least-once; receivers de-duplicate on X-SVC-Delivery, D-039).
 * - A delivered or DEAD job is never claimed: only `pending` ones are.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../storage/database.ts';
import { afterAttempt, RESPONSE_TIMEOUT_MS } from './schedule.ts';
import { deliveryHeaders } from './signature.ts';
import type { AttemptResult, WebhookTransport } from './transport.ts';
import type { WebhookSecretBox } from './secret-box.ts';
import { dbGroup, type Tracing } from '../server/telemetry/tracing.ts';
import { tracedAttempt } from '../server/telemetry/webhooks.ts';

/** A claimed job with what its attempt needs. */
type Job = {
  id: string;
  event: string;
  round: number;
  attempts: number;
  body: string;
  url: string;
  endpointId: string;
  /** Sealed (D-130): opened only for the attempt's signature. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
};

/** A finished attempt waiting to be recorded. */
type Finished = { job: Job; result: AttemptResult; signedAt: number };

/** Options of {@link WebhookDispatcher}. */
export type DispatcherOptions = {
  /** Attempts in flight at most (SVC_WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Real ms between polls for due jobs when idle. */
  pollMs?: number;
  /** How long a claim holds a job; longer than the 10-second limit plus recording. */
  leaseMs?: number;
  /** Hears unexpected errors (database down); the loop carries on at the next poll. */
  onError?: (error: unknown) => void;
  /** Opens the endpoints' sealed secrets (D-130). */
  secrets: WebhookSecretBox;
  /** D-278: hears each finished attempt, its number in the round (1-5) and outcome (the metrics). */
  onAttempt?: (number: number, success: boolean) => void;
};

/** Claims, sends and records webhook deliveries. */
export class WebhookDispatcher {
  /** This instance's lease owner id. */
  readonly owner = randomUUID();
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private inFlight = 0;
  private pumping = false;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private finished: Finished[] = [];
  private flushing: Promise<void> | undefined;
  private readonly running = new Set<Promise<void>>();
  /** Set while stopping: attempts cut short are not results. */
  private discard = false;
  /** D-266, D-268: the stack's tracing (each attempt a client span; the recording's query group). Undefined: traces off. */
  tracing: Tracing | undefined = undefined;

  /** Works on `db`, reads every time from `clock`, sends through `transport`. */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly transport: WebhookTransport,
    private readonly options: DispatcherOptions,
  ) {
    this.concurrency = Math.max(1, options.concurrency);
    this.leaseMs = options.leaseMs ?? 6 * RESPONSE_TIMEOUT_MS;
  }

  /** Starts polling for due jobs. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.discard = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 100);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due jobs now (after an emit, or when a test moved the clock). */
  wake(): void {
    void this.pump();
  }

  /**
   * Stops claiming; waits up to `graceMs` for attempts in flight, ends the rest as not made (their leases
   * are released so another instance, or the next start, attempts them again) and records what finished.
   * Resolves with how many attempts were ended so (D-264 reports them).
   */
  async stop(graceMs = 2000): Promise<number> {
    if (this.stopped) return 0;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    // D-264: a claim under way launches its jobs when it returns; they are waited for like the others, or one
    // attempt could be made, cut and released, and made again with the same number.
    while (this.pumping) await new Promise((resolve) => setTimeout(resolve, 5));
    const all = Promise.allSettled([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    const cutCount = this.inFlight;
    const cut = cutCount > 0;
    this.discard = true;
    this.transport.close();
    await all;
    await this.flush();
    if (cut) {
      // The cut attempts are discarded, not failures: they did not get their chance (a restart, not the receiver).
      await this.db
        .execute(
          sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ${this.owner} AND status = 'pending'`,
        )
        .catch(() => undefined);
    }
    return cutCount;
  }

  /** Resolves when nothing is in flight or waiting to be recorded (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.flushing || this.finished.length > 0 || this.pumping) {
      await Promise.allSettled([...this.running, this.flushing]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async pump(): Promise<void> {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        // Claims go in batches: with attempts in flight, wait until a quarter of the slots are free.
        while (
          !this.stopped &&
          this.concurrency - this.inFlight >= (this.inFlight === 0 ? 1 : Math.ceil(this.concurrency / 4))
        ) {
          const jobs = await this.claim(this.concurrency - this.inFlight);
          if (jobs.length === 0) break;
          for (const job of jobs) this.launch(job);
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.pumping = false;
    }
  }

  /** Claims up to `limit` due jobs with a lease: `FOR UPDATE SKIP LOCKED` keeps instances off each other's rows. */
  private async claim(limit: number): Promise<Job[]> {
    const now = new Date(this.clock.now());
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    const result = await this.db.execute(sql`
      UPDATE webhook_deliveries AS d
         SET lease_owner = ${this.owner}, lease_until = ${leaseUntil.toISOString()}::timestamptz
        FROM webhook_events AS e, webhook_endpoints AS w
       WHERE d.id IN (
               SELECT id FROM webhook_deliveries
                WHERE status = 'pending'
                  AND next_attempt_at <= ${now.toISOString()}::timestamptz
                  AND (lease_until IS NULL OR lease_until < ${now.toISOString()}::timestamptz)
                ORDER BY next_attempt_at
                LIMIT ${limit}
                  FOR UPDATE SKIP LOCKED)
         AND e.id = d.event_id
         AND w.id = d.endpoint_id
      RETURNING d.id, d.event, d.round, d.attempts, e.body, w.url, w.id AS "endpointId", w.secret,
                w.previous_secret AS "previousSecret", w.previous_secret_expires_at AS "previousSecretExpiresAt"`);
    return (result as unknown as { rows: Job[] }).rows.map((row) => ({
      ...row,
      previousSecretExpiresAt: row.previousSecretExpiresAt === null ? null : new Date(row.previousSecretExpiresAt),
    }));
  }

  private launch(job: Job): void {
    this.inFlight++;
    const run = this.attempt(job)
      .then((finished) => {
        if (this.discard) return;
        this.finished.push(finished);
        this.options.onAttempt?.(finished.job.attempts + 1, finished.result.success);
      })
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.inFlight--;
        this.running.delete(run);
        this.flushSoon();
      });
    this.running.add(run);
  }

  /** One attempt: signed now, with the secrets valid now (D-047: both during a rotation's grace period). */
  private async attempt(job: Job): Promise<Finished> {
    const signedAt = this.clock.now();
    const box = this.options.secrets;
    const secrets = [box.open(job.endpointId, job.secret)];
    if (job.previousSecret && job.previousSecretExpiresAt && job.previousSecretExpiresAt.getTime() > signedAt)
      secrets.push(box.open(job.endpointId, job.previousSecret));
    const headers = deliveryHeaders({ deliveryId: job.id, event: job.event, body: job.body, secrets, nowMs: signedAt });
    const send = (sent: Record<string, string>) => this.transport.post(job.url, job.body, sent);
    const result = this.tracing ? await tracedAttempt(this.tracing, this.db, job, headers, send) : await send(headers);
    return { job, result, signedAt: Math.floor(signedAt / 1000) };
  }

  /** Records finished attempts in batches: one transaction per batch, started once the current one ends. */
  private flushSoon(): void {
    if (this.flushing) return;
    // A short pause lets attempts finishing together share one write (PGlite and PostgreSQL alike pay per statement).
    this.flushing = new Promise((resolve) => setTimeout(resolve, this.inFlight > 0 ? 2 : 0))
      .then(() => this.flush())
      .finally(() => {
        this.flushing = undefined;
        if (this.finished.length > 0) this.flushSoon();
        else this.wake();
      });
  }

  private async flush(): Promise<void> {
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0, 256);
      try {
        await dbGroup(this.tracing, 'webhook.record', () => this.record(batch), {
          root: true,
          attributes: { 'svckit.webhook.attempts': batch.length },
        });
      } catch (error) {
        // Not recorded: the leases expire and the jobs are attempted again (at-least-once).
        this.options.onError?.(error);
      }
    }
  }

  /**
   * Writes each attempt and the delivery's next state in one transaction, only for jobs whose lease is still
   * ours (a job that outlived its lease may have been taken by another instance, whose record wins). Every
   * status change clears the lease (recording, DELETE of the endpoint, redelivery), so a lease held by this
   * instance also means the job is still pending; matching on the primary key keeps the write independent of
   * the backlog.
   */
  private async record(batch: Finished[]): Promise<void> {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    const values = sql.join(
      batch.map(({ job, result, signedAt }) => {
        const number = job.attempts + 1;
        const ended = result.startedAt + result.durationMs;
        const next = afterAttempt(number, result.success, ended);
        return sql`(${job.id}, ${job.round}::int, ${next.status}, ${number}::int,
          ${iso(next.status === 'pending' ? next.nextAttemptAt : null)}::timestamptz, ${iso(next.status === 'delivered' ? ended : null)}::timestamptz,
          ${new Date(result.startedAt).toISOString()}::timestamptz, ${Math.round(result.durationMs)}::int, ${result.responseStatus}::int,
          ${result.error}::text, ${result.success ? 'success' : 'failure'}, ${signedAt}::bigint)`;
      }),
      sql`, `,
    );
    // One statement, so one atomic write: the delivery's next state and, only where that update happened,
    // the attempt row.
    await this.db.execute(sql`
      WITH v(id, round, status, number, next, delivered, started, duration, response, error, outcome, signed) AS (VALUES ${values}),
      updated AS (
        UPDATE webhook_deliveries AS d
           SET status = v.status, attempts = v.number, next_attempt_at = v.next, delivered_at = v.delivered,
               lease_owner = NULL, lease_until = NULL
          FROM v
         WHERE d.id = v.id AND d.round = v.round AND d.lease_owner = ${this.owner}
        RETURNING d.id)
      INSERT INTO webhook_attempts (delivery_id, round, number, started_at, duration_ms, response_status, error, outcome, signed_at)
      SELECT v.id, v.round, v.number, v.started, v.duration, v.response, v.error, v.outcome, v.signed FROM v JOIN updated ON updated.id = v.id
      ON CONFLICT DO NOTHING`);
  }
}
