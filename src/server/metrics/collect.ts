/**
 * Scrape-time readings (D-279): the gauges that come from the database, Redis, the chain node and the evidence
 * directory are read when /metrics is asked, all in parallel, each bounded by COLLECT_TIMEOUT_MS (and the
 * database's statements by the same statement_timeout). A reading that fails or passes the time-out counts in
 * `svckit_metrics_collect_failures_total{source}` and leaves its gauges at their last value. Counts stop at
 * COUNT_CAP per label value, so no scrape reads an unbounded number of rows.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { DeliveryStatusSchema } from '@svckit/sdk/admin/schemas';
import { TransferStatusSchema } from '@svckit/sdk/institutional/schemas';
import type { Upstream } from '../../node/upstream.ts';
import type { Database } from '../../storage/database.ts';
import type { StackMetrics } from './registry.ts';
import { within } from '../http/probes.ts';

/** D-279: the longest one scrape-time reading may take. */
export const COLLECT_TIMEOUT_MS = 2000;
/** D-279: counts by status or state stop here (a value equal to it means "at least"). */
export const COUNT_CAP = 1_000_000;

const TRANSFER_STATUSES = TransferStatusSchema.enum;
const DELIVERY_STATES = DeliveryStatusSchema.enum;

/** What the readings read. */
export type Sources = {
  db: Database;
  redis: Redis | undefined;
  upstream: Upstream;
  /** The site's evidence directory (pqc-evidence.json). */
  evidenceDir: string;
  /** The open /ws connections and their subscriptions. */
  sockets: { readonly size: number; subscriptionCount(): number };
  now: () => number;
};

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (result as { rows: Row[] }).rows;

/** Runs `query` in a read-only transaction whose statements end after COLLECT_TIMEOUT_MS. */
function bounded(db: Database, query: ReturnType<typeof sql>): Promise<Row[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${COLLECT_TIMEOUT_MS}`));
    return rowsOf(await tx.execute(query));
  });
}

/** One capped count per value of `column` in `table`, in one statement. */
function cappedCounts(table: string, column: string, values: readonly string[]) {
  const parts = values.map(
    (v) =>
      sql`SELECT ${v}::text AS value, (SELECT count(*) FROM (SELECT 1 FROM ${sql.identifier(table)} WHERE ${sql.identifier(column)} = ${v} LIMIT ${COUNT_CAP}) c)::int AS n`,
  );
  return sql.join(parts, sql` UNION ALL `);
}

const seconds = (ms: number) => Math.max(0, ms / 1000);
const toMs = (value: unknown) =>
  value === null || value === undefined ? undefined : new Date(value as string).getTime();

/**
 * Reads every scrape-time gauge of `metrics` from `sources`; resolves within about COLLECT_TIMEOUT_MS. Concurrent
 * calls share the collection in progress.
 */
export function collector(metrics: StackMetrics, sources: Sources): () => Promise<void> {
  const { db, redis, upstream, now } = sources;
  const evidenceFile = path.join(sources.evidenceDir, 'pqc-evidence.json');
  let evidence: { mtimeMs: number; generated: number | undefined } | undefined;
  const readings: Record<string, () => Promise<unknown>> = {
    database: async () => {
      const started = performance.now();
      await db.execute(sql`select 1`);
      metrics.roundTrip.set({ dependency: 'database' }, (performance.now() - started) / 1000);
    },
    ...(redis
      ? {
          redis: async () => {
            const started = performance.now();
            await redis.ping();
            metrics.roundTrip.set({ dependency: 'redis' }, (performance.now() - started) / 1000);
          },
        }
      : {}),
    transfers: async () => {
      const rows = await bounded(
        db,
        sql`${cappedCounts('transfers', 'status', TRANSFER_STATUSES)} UNION ALL
            SELECT 'oldest_pending', (SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint FROM transfers WHERE status = 'pending')::bigint`,
      );
      for (const row of rows) {
        if (row.value === 'oldest_pending')
          metrics.oldestPending.set(row.n === null ? 0 : seconds(now() - Number(row.n)));
        else metrics.transfers.set({ status: String(row.value) }, Number(row.n));
      }
    },
    webhooks: async () => {
      const at = new Date(now()).toISOString();
      const rows = await bounded(
        db,
        sql`${cappedCounts('webhook_deliveries', 'status', DELIVERY_STATES)} UNION ALL
            SELECT 'oldest_due', (SELECT (extract(epoch FROM min(next_attempt_at)) * 1000)::bigint FROM webhook_deliveries
              WHERE status = 'pending' AND next_attempt_at <= ${at}::timestamptz)::bigint`,
      );
      for (const row of rows) {
        if (row.value === 'oldest_due') metrics.outboxLag.set(row.n === null ? 0 : seconds(now() - Number(row.n)));
        else metrics.deliveries.set({ state: String(row.value) }, Number(row.n));
      }
    },
    chain: async () => {
      const head = await upstream.call<{ number: string; timestamp: string } | null>('eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      if (!head) return;
      metrics.chainHead.set(Number(BigInt(head.number)));
      metrics.sinceBlock.set(seconds(now() - Number(BigInt(head.timestamp)) * 1000));
    },
    evidence: async () => {
      const info = await stat(evidenceFile).catch(() => undefined);
      if (!info) {
        evidence = undefined;
        // No document: NaN, which Prometheus keeps as "no value" (an age alert does not fire on it).
        metrics.evidenceAge.set(Number.NaN);
        return;
      }
      // Read again only when the file changed; the document is small, `svckit evidence build` writes it.
      if (evidence?.mtimeMs !== info.mtimeMs) {
        const generated = await readFile(evidenceFile, 'utf8')
          .then((text) => toMs((JSON.parse(text) as { generated?: unknown }).generated))
          .catch(() => undefined);
        evidence = { mtimeMs: info.mtimeMs, generated: Number.isFinite(generated) ? generated : undefined };
      }
      metrics.evidenceAge.set(seconds(now() - (evidence.generated ?? info.mtimeMs)));
    },
  };
  const run = async () => {
    metrics.wsConnections.set(sources.sockets.size);
    metrics.wsSubscriptions.set(sources.sockets.subscriptionCount());
    await Promise.all(
      Object.entries(readings).map(async ([source, read]) => {
        if (await within(COLLECT_TIMEOUT_MS, read)) return;
        metrics.collectFailures.inc({ source });
        if (source === 'database' || source === 'redis') metrics.dependencyErrors.inc({ dependency: source });
      }),
    );
  };
  // Scrapes that arrive while a collection runs share it: however many there are, one set of readings at a time.
  let running: Promise<void> | undefined;
  return () => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
}
