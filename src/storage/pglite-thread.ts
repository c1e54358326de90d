/**
 * Embedded PGlite on a worker thread of its own (src/storage/pglite-worker.ts), behind the two methods
 * drizzle-orm's PGlite driver calls: `query` and `transaction`.
 *
 * Why a thread: PGlite executes PostgreSQL (WebAssembly) on the thread that calls it, and on the server's
 * main thread it was the largest cost of a transfer (docs/benchmarks.md). Semantics
 * are unchanged: the worker holds PGlite's transaction mutex while a transaction is open, so other queries
 * wait for it, and PostgreSQL's error fields (SQLSTATE `code`, `constraint`...) come back on the error.
 * Drizzle's per-query text parsers are dropped here, as in pglite-client.ts: the worker opens PGlite with
 * them installed (functions cannot cross the thread boundary anyway).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PGlite, QueryOptions, Results, Transaction } from '@electric-sql/pglite';
import type { DrizzlePgliteClient } from './pglite-client.ts';
import type { PgliteReply, PgliteRequest, SerializedError } from './pglite-protocol.ts';

/** PGlite's WebAssembly, compiled once per process and shared with every worker (V8 shares the code). */
let compiled: Promise<WebAssembly.Module> | undefined;
function pgliteWasmModule(): Promise<WebAssembly.Module> {
  // The package's exports do not list the .wasm file; it sits beside the entry point, where PGlite reads it.
  const wasmPath = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
    'pglite.wasm',
  );
  compiled ??= readFile(wasmPath).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

/** An error from the worker, with PostgreSQL's fields restored on it. */
function restoreError({ name, message, fields }: SerializedError): Error {
  const error = Object.assign(new Error(message), fields);
  error.name = name;
  return error;
}

/** Where the database lives: files in a directory, or memory loaded from a dump (tests). */
export type PgliteThreadOptions = { dataDir: string } | { loadDataDir: Blob };

/** A PGlite database on its own thread. */
export class PgliteThread implements DrizzlePgliteClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private stopped: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.unref(); // referenced only while a request waits (see request), so an idle database never holds the process open
    worker.on('message', (message: PgliteReply) => {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (this.waiting.size === 0) worker.unref();
      if (message.error) waiter.reject(restoreError(message.error));
      else waiter.resolve(message.result);
    });
    worker.on('error', (error: Error) =>
      this.stop(new Error(`the PGlite worker thread failed: ${error.message}`, { cause: error })),
    );
    worker.on('exit', (code) => this.stop(new Error(`the PGlite worker thread exited (code ${code})`)));
  }

  /** Starts the worker and opens the database in it. */
  static async open(options: PgliteThreadOptions): Promise<PgliteThread> {
    // The worker runs on Node alone (type stripping): none of the parent's flags, loaders or --input-type apply to it.
    // In a checkout it is this module's .ts sibling; the package compiles both into dist/cli/ (D-230).
    const worker = import.meta.url.endsWith('.ts') ? './pglite-worker.ts' : './pglite-worker.js';
    const thread = new PgliteThread(new Worker(new URL(worker, import.meta.url), { execArgv: [] }));
    const wasmModule = await pgliteWasmModule();
    try {
      if ('dataDir' in options) await thread.request({ op: 'open', dataDir: options.dataDir, wasmModule });
      else await thread.request({ op: 'open', loadDataDir: await options.loadDataDir.arrayBuffer(), wasmModule });
    } catch (error) {
      await thread.worker.terminate();
      throw error;
    }
    return thread;
  }

  /** A query outside any transaction (it waits while a transaction is open, as PGlite does). */
  query = (<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> =>
    this.request({ op: 'query', sql, params, rowMode: options?.rowMode }) as Promise<Results<T>>) as PGlite['query'];

  /** Runs `callback` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction = (async <T>(callback: (tx: Transaction) => Promise<T>): Promise<T> => {
    const { tx } = (await this.request({ op: 'begin' })) as { tx: number };
    const client = {
      query: (sql: string, params?: unknown[], options?: QueryOptions) =>
        this.request({ op: 'query', sql, params, rowMode: options?.rowMode, tx }),
    } as unknown as Transaction;
    let result: T;
    try {
      result = await callback(client);
    } catch (error) {
      // The caller's error is what matters; a failed rollback means the worker is gone, which every later
      // request reports on its own.
      await this.request({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.request({ op: 'end', tx, commit: true });
    return result;
  }) as PGlite['transaction'];

  /** Closes the database and stops the worker. */
  async close(): Promise<void> {
    if (!this.stopped) await this.request({ op: 'close' });
    await this.worker.terminate();
  }

  private request(request: PgliteRequest): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  /** The worker is gone: every waiting and later request fails with the reason. */
  private stop(reason: Error) {
    this.stopped ??= reason;
    for (const waiter of this.waiting.values()) waiter.reject(this.stopped);
    this.waiting.clear();
  }
}
