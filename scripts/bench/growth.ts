/**
 * `npm run bench -- growth`: do the product's queries cost the same on a large database as on a small one?
 * PostgreSQL (a throw-away cluster, pg-cluster.ts, or the server of DATABASE_URL, where it creates one database
 * per size, svckit_growth_<size>) is seeded in bulk (growth-seed.ts) to each size of BENCH_GROWTH_SIZES (default 10⁴, 10⁵, 10⁶ transfers, payments and
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
import { type OpenDatabase, openDatabase } from '../../src/storage/database.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { PROBE, PROBE_REF, seedBulk, seedFixed } from './growth-seed.ts';
import { type Cluster, startCluster } from './pg-cluster.ts';
import { type BenchFigure, type BenchSection, figure, machine, postgresVersion, reportResult } from './result.ts';

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_GROWTH_RUNS ?? 60);

const cluster: Cluster | undefined = process.env.DATABASE_URL ? undefined : await startCluster();
const serverUrl = process.env.DATABASE_URL ?? cluster!.url;
const clock = new OffsetClock();
const CLAIM = 32;

/** A node that has mined none of the pending transfers: every receipt is null (the database is what is timed). */
const noReceipts = {
  batchResults: async (calls: readonly unknown[]) => calls.map(() => null),
} as unknown as Upstream;

type Query = { name: string; targeted: boolean; run: () => Promise<unknown>; after?: () => Promise<unknown> };

/** One size: its own database on the server, seeded to `size` rows, and the queries bound to it. */
type Sized = { size: number; database: OpenDatabase; queries: Query[] };

/** The URL of database `name` on the server of `url`. */
function databaseUrl(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.href;
}

/** Creates database growth_<size>, migrates and seeds it, and binds the product's query code to it. */
async function sized(size: number): Promise<Sized> {
  const name = `svckit_growth_${size}`;
  const admin = await openDatabase({ dataDir: null, databaseUrl: serverUrl });
  await admin.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`));
  await admin.db.execute(sql.raw(`CREATE DATABASE ${name}`));
  await admin.close();
  const database = await openDatabase({ dataDir: null, databaseUrl: databaseUrl(serverUrl, name) });
  const { db } = database;
  const started = performance.now();
  await seedFixed(db);
  await seedBulk(db, 0, size - 1);
  console.log(`${size} rows seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const confirmer = new TransferConfirmer(db, noReceipts);
  const dispatcher = new WebhookDispatcher(db, clock, new WebhookTransport(clock, { ca: [], maxSockets: 1 }), {
    concurrency: CLAIM,
    secrets: new WebhookSecretBox(Keyring.open({ dataDir: null })),
  });
  // The dispatcher's claim, called as its pump calls it (a private method of the product's class).
  const claim = (limit: number) => (dispatcher as unknown as { claim(limit: number): Promise<unknown[]> }).claim(limit);
  const clearLeases = () =>
    db.execute(sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL`);
  // Each query checks it found what the seed put there (a query that finds nothing is cheap).
  const queries: Query[] = [
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
  return { size, database, queries };
}

function expectRows(got: number, wanted: number): void {
  if (got !== wanted) throw new Error(`expected ${wanted} rows, got ${got}: the seed is not what the query reads`);
}

/**
 * p50 and p95 (ms) of each query at each size. The sizes take turns run by run, so a busy moment of the
 * machine falls on every size alike instead of on whichever size was being measured.
 */
async function timeAll(all: Sized[]): Promise<Map<string, { p50: number; p95: number }>> {
  const times = new Map<string, number[]>();
  for (let q = 0; q < all[0]!.queries.length; q++) {
    for (let i = 0; i < RUNS + 5; i++) {
      for (const s of all) {
        const query = s.queries[q]!;
        const start = performance.now();
        await query.run();
        const elapsed = performance.now() - start;
        await query.after?.();
        const key = `${query.name}@${s.size}`;
        if (i >= 5) times.set(key, [...(times.get(key) ?? []), elapsed]);
      }
    }
  }
  const out = new Map<string, { p50: number; p95: number }>();
  for (const [key, list] of times) {
    list.sort((a, b) => a - b);
    const at = (p: number) => list[Math.min(list.length - 1, Math.floor(p * list.length))]!;
    out.set(key, { p50: at(0.5), p95: at(0.95) });
  }
  return out;
}

/** Runs each query once with auto_explain on and returns the plans the server logged for it. */
async function plans(largest: Sized): Promise<BenchSection[]> {
  if (!cluster) return [];
  const { db } = largest.database;
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
    for (const query of largest.queries) {
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
const all: Sized[] = [];
console.log(`svckit growth benchmark: sizes ${SIZES.join(', ')}, ${RUNS} runs per query and size, sizes taking turns`);
try {
  for (const size of SIZES) all.push(await sized(size));
  const postgres = await postgresVersion(all[0]!.database);
  const timed = await timeAll(all);
  for (const query of all[0]!.queries) {
    console.log(`\n${query.name}`);
    for (const { size } of all) {
      const t = timed.get(`${query.name}@${size}`)!;
      console.log(
        `  ${String(size).padStart(8)} rows   p50 ${t.p50.toFixed(3).padStart(8)} ms   p95 ${t.p95.toFixed(3).padStart(8)} ms`,
      );
      figures.push(
        figure(`${query.name}, ${size} rows: p50`, t.p50, 'ms'),
        figure(`${query.name}, ${size} rows: p95`, t.p95, 'ms'),
      );
    }
    const [first, last] = [timed.get(`${query.name}@${SIZES[0]}`)!, timed.get(`${query.name}@${SIZES.at(-1)}`)!];
    const f = figure(
      `${query.name}: p50 at ${SIZES.at(-1)} / p50 at ${SIZES[0]} rows`,
      last.p50 / first.p50,
      'x',
      query.targeted ? { limit: 1.5, comparison: 'at-most' } : undefined,
    );
    figures.push(f);
    console.log(`  p50 ratio ${f.value.toFixed(2)}x: ${f.verdict}`);
  }
  const sections = await plans(all.at(-1)!);
  reportResult({
    bench: 'growth',
    machine: machine(postgres),
    figures,
    notes: [
      `PostgreSQL ${cluster ? 'throw-away cluster started by the benchmark' : 'server given by DATABASE_URL'}, one database per size; ${RUNS} timed runs per query and size after 5 warm-up runs, the sizes taking turns run by run`,
      'the probed account (200 sent, 50 received, 20 pending) and 100 due deliveries are the same at every size',
    ],
    sections,
  });
} catch (error) {
  console.error('growth benchmark failed:', error);
  process.exitCode = 1;
} finally {
  for (const s of all) await s.database.close();
  cluster?.stop();
}
