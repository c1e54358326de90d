// Scrape-time readings are bounded (D-279): a chain node that accepts the connection and never answers costs a
// scrape at most COLLECT_TIMEOUT_MS, counts as a failed reading and leaves the chain gauges as they were.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upstream } from '../../src/node/upstream.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { COLLECT_TIMEOUT_MS, collector } from '../../src/server/metrics/collect.ts';
import { StackMetrics } from '../../src/server/metrics/registry.ts';

let silent: Server;
let database: OpenDatabase;
beforeAll(async () => {
  // A node that reads requests and never answers them.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  database = await openDatabase({ dataDir: null });
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  await database?.close();
});

const value = async (metrics: StackMetrics, name: string, labels: Record<string, string> = {}) =>
  (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) =>
    Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  )?.value;

describe('scrape-time readings (D-279)', () => {
  it('end within the time-out when the node does not answer, and count the failure', async () => {
    const metrics = new StackMetrics();
    const port = (silent.address() as AddressInfo).port;
    const collect = collector(metrics, {
      db: database.db,
      redis: undefined,
      upstream: new Upstream(`http://127.0.0.1:${port}`, { timeoutMs: 60_000 }),
      evidenceDir: '/nonexistent/evidence',
      sockets: { size: 0, subscriptionCount: () => 0 },
      now: Date.now,
    });
    const started = performance.now();
    // Two scrapes at once share one collection.
    await Promise.all([collect(), collect()]);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(COLLECT_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(COLLECT_TIMEOUT_MS + 1500);
    expect(await value(metrics, 'svckit_metrics_collect_failures_total', { source: 'chain' })).toBe(1);
    expect(await value(metrics, 'svckit_metrics_collect_failures_total', { source: 'transfers' })).toBeUndefined();
    expect(await value(metrics, 'svckit_chain_head_block')).toBe(0);
    // The database readings, which answered, are there.
    expect(await value(metrics, 'svckit_transfers', { status: 'pending' })).toBe(0);
    expect(await value(metrics, 'svckit_dependency_round_trip_seconds', { dependency: 'database' })).toBeGreaterThan(0);
    expect(await value(metrics, 'svckit_evidence_document_age_seconds')).toBeNaN();
  });
});
