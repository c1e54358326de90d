/**
 * PGlite as Drizzle's client, without a per-query cost Drizzle's driver adds by accident.
 *
 * drizzle-orm's PGlite driver (0.45) passes `parsers` with every query so that timestamps, dates, intervals
 * and their arrays come back as text. PGlite (0.5) merges per-query parsers into its own table of 319
 * parsers on every result (`{...this.parsers, ...options.parsers}`). The profile of `npm run bench --
 * institutional` pointed there; on this machine a one-row select through PGlite took 0.37 ms with
 * per-query parsers and 0.16 ms with the same parsers installed once, when PGlite opens, as here. test/storage/pglite-client.test.ts fails if Drizzle's parsers ever stop matching these.
 */
import { PGlite, types, type PGliteOptions, type QueryOptions, type Transaction } from '@electric-sql/pglite';

const asText = (value: string) => value;

/** The parsers drizzle-orm's PglitePreparedQuery sends with every query: these types stay text. */
export const DRIZZLE_TEXT_PARSERS: Record<number, (value: string) => string> = {
  [types.TIMESTAMP]: asText,
  [types.TIMESTAMPTZ]: asText,
  [types.INTERVAL]: asText,
  [types.DATE]: asText,
  1231: asText, // numeric[]
  1115: asText, // timestamp[]
  1185: asText, // timestamptz[]
  1187: asText, // interval[]
  1182: asText, // date[]
};

/**
 * A ready PGlite instance with Drizzle's text parsers installed once. They go in after start-up, because
 * PGlite installs its array parsers (date[], timestamp[] and the rest) while it starts.
 */
export async function openPglite(options: PGliteOptions = {}): Promise<PGlite> {
  const pglite = new PGlite(options);
  await pglite.waitReady;
  Object.assign(pglite.parsers, DRIZZLE_TEXT_PARSERS);
  return pglite;
}

/** The query options without per-query parsers (the instance already has Drizzle's, see openPglite). */
const withoutParsers = (options?: QueryOptions): QueryOptions | undefined => {
  if (!options?.parsers) return options;
  const { parsers: _installedAtConstruction, ...rest } = options;
  return rest;
};

/** What drizzle-orm's PGlite session calls on its client: `query` and `transaction`. */
export type DrizzlePgliteClient = Pick<PGlite, 'query' | 'transaction'>;

/** Wraps a PGlite made by openPglite so Drizzle's per-query parsers are dropped, in and out of transactions. */
export function drizzleClientOf(pglite: PGlite): DrizzlePgliteClient {
  const wrapTransaction = (tx: Transaction): Transaction =>
    Object.create(tx, {
      query: {
        value: (sql: string, params?: unknown[], options?: QueryOptions) =>
          tx.query(sql, params, withoutParsers(options)),
      },
    }) as Transaction;
  return {
    query: ((sql: string, params?: unknown[], options?: QueryOptions) =>
      pglite.query(sql, params, withoutParsers(options))) as PGlite['query'],
    transaction: ((callback: (tx: Transaction) => Promise<unknown>) =>
      pglite.transaction((tx) => callback(wrapTransaction(tx)))) as PGlite['transaction'],
  };
}
