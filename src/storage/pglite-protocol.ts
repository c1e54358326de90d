/** The messages between src/storage/pglite-thread.ts (main side) and src/storage/pglite-worker.ts. */

/** What the main side asks; each carries an `id` its reply repeats. */
export type PgliteRequest =
  /** Open the database: files in `dataDir`, or memory loaded from a dump; the compiled module is shared. */
  | { op: 'open'; dataDir?: string; loadDataDir?: ArrayBuffer; wasmModule: WebAssembly.Module }
  /** A query, inside transaction `tx` when given (rows as objects or arrays, as drizzle-orm asks). */
  | { op: 'query'; sql: string; params?: unknown[]; rowMode?: 'array' | 'object'; tx?: number }
  /** Open a transaction; the reply carries its number once PGlite's transaction mutex is held. */
  | { op: 'begin' }
  /** Commit or roll back transaction `tx`; the reply comes once PGlite has done it. */
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'close' };

/** An error as plain data: PostgreSQL's fields (code, constraint, detail...) survive the thread boundary. */
export type SerializedError = {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean | null>;
};

/** The answer to request `id`. */
export type PgliteReply =
  | { id: number; result: unknown; error?: undefined }
  | { id: number; error: SerializedError; result?: undefined };
