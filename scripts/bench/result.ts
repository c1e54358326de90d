/**
 * The one shape every benchmark writes with `--json <file>`: its figures, each with its target (a limit and
 * a comparison), the ratio measured / limit and the verdict, and the machine it ran on. `npm run bench -- all`
 * collects these files and `npm run bench -- docs` writes docs/benchmarks.md from them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { OpenDatabase } from '../../src/storage/database.ts';

/** How a measured value is held against its limit. */
export type Comparison = 'at-most' | 'at-least';

/** met: the target holds; missed: it does not; info-only: a figure without a target. */
export type Verdict = 'met' | 'missed' | 'info-only';

/** A target: the measured value must be `comparison` `limit` (in the figure's unit). */
export type BenchTarget = { limit: number; comparison: Comparison; description?: string };

/** One measured figure. `ratio` is value / limit (absent without a target or with a limit of 0). */
export type BenchFigure = {
  name: string;
  value: number;
  unit: string;
  target?: BenchTarget;
  ratio?: number;
  verdict: Verdict;
};

/** Where a benchmark ran. `postgres` is the server's version when the benchmark used PostgreSQL. */
export type Machine = {
  cores: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  openssl: string;
  postgres?: string;
  date: string;
};

/** A preformatted part of a result (e.g. a query plan), written verbatim into the docs. */
export type BenchSection = { title: string; text: string };

/** Everything one benchmark run reports. */
export type BenchResult = {
  bench: string;
  machine: Machine;
  figures: BenchFigure[];
  notes?: string[];
  sections?: BenchSection[];
};

/** A figure with its ratio and verdict worked out from `target` (info-only without one). */
export function figure(name: string, value: number, unit: string, target?: BenchTarget): BenchFigure {
  if (!target) return { name, value, unit, verdict: 'info-only' };
  const met = target.comparison === 'at-most' ? value <= target.limit : value >= target.limit;
  // A limit of 0 (no gap, no early retry) has no ratio.
  const ratio = target.limit === 0 ? {} : { ratio: value / target.limit };
  return { name, value, unit, target, ...ratio, verdict: met ? 'met' : 'missed' };
}

/** The machine this process runs on; `postgres` when the benchmark used a PostgreSQL server. */
export function machine(postgres?: string): Machine {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.versions.node,
    openssl: process.versions.openssl,
    ...(postgres ? { postgres } : {}),
    date: new Date().toISOString(),
  };
}

/** The PostgreSQL server version of `database` when it is a PostgreSQL server (not PGlite), else undefined. */
export async function postgresVersion(database: OpenDatabase): Promise<string | undefined> {
  if (database.engine !== 'postgres') return undefined;
  const result = await database.db.execute(sql`SHOW server_version`);
  return String((result as unknown as { rows: { server_version: string }[] }).rows[0]?.server_version);
}

/** The file given as `--json <file>` on the command line, if any. */
export function jsonArgument(argv: string[] = process.argv): string | undefined {
  const at = argv.indexOf('--json');
  return at === -1 ? undefined : argv[at + 1];
}

/** Writes `result` to `file` (creating its folder) as indented JSON. */
export function writeResult(result: BenchResult, file: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}

/** Writes `result` where `--json` says, if it says; returns the file written. */
export function reportResult(result: BenchResult, argv: string[] = process.argv): string | undefined {
  const file = jsonArgument(argv);
  if (file) writeResult(result, file);
  return file;
}
