/**
 * `npm run bench -- growth`: do the product's queries cost the same on a large database as on a small one?
 * PostgreSQL (a throw-away cluster, pg-cluster.ts, or an empty database given by DATABASE_URL) is seeded in
 * bulk (growth-seed.ts) to each size of BENCH_GROWTH_SIZES (default 10⁴, 10⁵, 10⁶ transfers, payments and
 * webhook deliveries); at each size the product's own query code is timed (the functions the server calls):
 *
 *  - statement page:       statementPage (GET /accounts/{id}/statement), first page of 20;
 *  - transfer list:        transferPage for one account (GET /transfers?accountId=), first page of 20;
 *  - transfer list, all:   transferPage for every account (no target: its total counts the whole table);
 *  - transfer by reference: findTransfer (GET /transfers/{reference});
 *  - dispatcher claim:     WebhookDispatcher's claim of up to 32 due jobs (the leases are cleared, untimed);
 *  - confirmer pass:       TransferConfirmer.poke over the pending transfers, against a node that knows none
 *                          of them (an in-process upstream answering null receipts: the database is measured).
 *
 * Target: p50 at the largest size at most 1.5x p50 at the smallest. With the bench's own cluster the plans
 * at the largest size are logged by auto_explain (EXPLAIN ANALYZE, BUFFERS) and written into the result.
 * Settings: BENCH_GROWTH_SIZES (comma-separated), BENCH_GROWTH_RUNS (timed runs per query, default 60).
 */
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { OffsetClock } from '../../src/clock.ts';
import { TransferConfirmer } from '../../src/ledger/transfers/confirmer.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import type { Upstream } from '../../src/node/upstream.ts';
import { findTransfer, statementPage, transferPage } from '../../src/server/institutional/store.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { PROBE, PROBE_REF, seedBulk, seedFixed } from './growth-seed.ts';
import { type Cluster, startCluster } from './pg-cluster.ts';
import { type BenchFigure, type BenchSection, figure, machine, postgresVersion, reportResult } from './result.ts';

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_GROWTH_RUNS ?? 60);
const CLAIM = 32;

const cluster: Cluster | undefined = process.env.DATABASE_URL ? undefined : await startCluster();
const database = await openDatabase({ dataDir: null, databaseUrl: process.env.DATABASE_URL ?? cluster!.url });
const { db } = database;
const clock = new OffsetClock();

/** A node that has mined none of the pending transfers: every receipt is null (the database is what is timed). */
const noReceipts = {
  batchResults: async (calls: readonly unknown[]) => calls.map(() => null),
} as unknown as Upstream;
const confirmer = new TransferConfirmer(db, noReceipts);
const dispatcher = new WebhookDispatcher(db, clock, new WebhookTransport(clock, {}), {
  concurrency: CLAIM,
  secrets: new WebhookSecretBox(Keyring.open({ dataDir: null })),
});
/** The dispatcher's claim, called as its pump calls it (a private method of the product's class). */
const claim = (limit: number) => (dispatcher as unknown as { claim(limit: number): Promise<unknown[]> }).claim(limit);
const clearLeases = () =>
  db.execute(sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL`);

/** The queries, each with a check that it found what the seed put there (a query that finds nothing is cheap). */
const QUERIES: { name: string; targeted: boolean; run: () => Promise<unknown>; after?: () => Promise<unknown> }[] = [
  {
    name: 'statement page',
    targeted: true,
    run: async () => expectRows((await statementPage(db, PROBE, 1, 20)).rows.length, 20),
  },
  {
    name: 'transfer list, one account',
    targeted: true,
    run: async () => expectRows((await transferPage(db, [PROBE.id], 1, 20)).rows.length, 20),
  },
  {
    name: 'transfer list, every account',
    targeted: false,
    run: async () => expectRows((await transferPage(db, null, 1, 20)).rows.length, 20),
  },
  {
    name: 'transfer by reference',
    targeted: true,
    run: async () => expectRows((await findTransfer(db, PROBE_REF)) ? 1 : 0, 1),
  },
  {
    name: 'dispatcher claim',
    targeted: true,
    run: async () => expectRows((await claim(CLAIM)).length, CLAIM),
    after: clearLeases,
  },
  { name: 'confirmer pass', targeted: true, run: () => confirmer.poke() },
];

function expectRows(got: number, wanted: number): void {
  if (got !== wanted) throw new Error(`expected ${wanted} rows, got ${got}: the seed is not what the query reads`);
}

/** p50 and p95 (ms) of RUNS timed runs after a warm-up. */
async function time(query: (typeof QUERIES)[number]): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const start = performance.now();
    await query.run();
    if (i >= 5) times.push(performance.now() - start);
    await query.after?.();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

/** Runs each query once with auto_explain on and returns the plans the server logged for it. */
async function plans(): Promise<BenchSection[]> {
  if (!cluster) return [];
  const setting = (on: boolean) =>
    [
      `ALTER SYSTEM SET auto_explain.log_min_duration = ${on ? 0 : -1}`,
      `ALTER SYSTEM SET auto_explain.log_analyze = ${on}`,
      `ALTER SYSTEM SET auto_explain.log_buffers = ${on}`,
      'SELECT pg_reload_conf()',
    ].reduce((p, statement) => p.then(() => db.execute(sql.raw(statement))), Promise.resolve() as Promise<unknown>);
  const sections: BenchSection[] = [];
  await setting(true);
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    for (const query of QUERIES) {
      const offset = statSync(cluster.logFile).size;
      await query.run();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const text = readFileSync(cluster.logFile, 'utf8').slice(offset);
      await query.after?.();
      sections.push({
        title: `${query.name}: EXPLAIN (ANALYZE, BUFFERS) at ${SIZES.at(-1)} rows`,
        text: planText(text),
      });
    }
  } finally {
    await setting(false);
  }
  return sections;
}

/** The auto_explain entries of a server log excerpt, without the log line prefixes. */
function planText(log: string): string {
  const entries = log.split(/\n(?=\S)/).filter((e) => e.includes('plan:'));
  return entries
    .map((e) => e.replace(/^.*?LOG: {2}/, ''))
    .join('\n\n')
    .trim();
}

const figures: BenchFigure[] = [];
const bySize = new Map<string, { p50: number; p95: number }[]>();
console.log(
  `svckit growth benchmark: PostgreSQL ${await postgresVersion(database)}, sizes ${SIZES.join(', ')}, ${RUNS} runs per query`,
);
try {
  await seedFixed(db);
  let seeded = 0;
  for (const size of SIZES) {
    const started = performance.now();
    await seedBulk(db, seeded, size - 1);
    seeded = size;
    console.log(`\n${size} rows (seeded in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    for (const query of QUERIES) {
      const t = await time(query);
      bySize.set(query.name, [...(bySize.get(query.name) ?? []), t]);
      console.log(
        `  ${query.name.padEnd(30)} p50 ${t.p50.toFixed(3).padStart(8)} ms   p95 ${t.p95.toFixed(3).padStart(8)} ms`,
      );
      figures.push(
        figure(`${query.name}, ${size} rows: p50`, t.p50, 'ms'),
        figure(`${query.name}, ${size} rows: p95`, t.p95, 'ms'),
      );
    }
  }
  console.log('');
  for (const query of QUERIES) {
    const [first, last] = [bySize.get(query.name)![0]!, bySize.get(query.name)!.at(-1)!];
    const f = figure(
      `${query.name}: p50 at ${SIZES.at(-1)} / p50 at ${SIZES[0]} rows`,
      last.p50 / first.p50,
      'x',
      query.targeted ? { limit: 1.5, comparison: 'at-most' } : undefined,
    );
    figures.push(f);
    console.log(`  ${query.name.padEnd(30)} ${f.value.toFixed(2)}x ${f.verdict}`);
  }
  const sections = await plans();
  reportResult({
    bench: 'growth',
    machine: machine(await postgresVersion(database)),
    figures,
    notes: [
      `PostgreSQL ${cluster ? 'throw-away cluster started by the benchmark' : 'given by DATABASE_URL'}; ${RUNS} timed runs per query after 5 warm-up runs`,
      'the probed account (200 sent, 50 received, 20 pending) and 100 due deliveries are the same at every size',
    ],
    sections,
  });
} catch (error) {
  console.error('growth benchmark failed:', error);
  process.exitCode = 1;
} finally {
  await database.close();
  cluster?.stop();
}
