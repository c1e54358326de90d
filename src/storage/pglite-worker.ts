/**
 * The worker thread that owns the embedded PGlite database (the main side is src/storage/pglite-thread.ts).
 *
 * PGlite runs PostgreSQL compiled to WebAssembly on the thread that calls it. On the server's main thread
 * it took about 55 % of that thread's busy time under `npm run bench -- institutional` ("at least
 * 200 transfers per second accepted"), while the machine's other core sat partly idle. Here it has a thread
 * of its own. Transactions keep PGlite's own semantics: `transaction` holds PGlite's transaction mutex in
 * this thread until the main side ends it, so a query from outside the transaction waits, exactly as it
 * would in-process.
 *
 * Node runs this file directly (type stripping), so it uses erasable TypeScript only and imports nothing
 * that needs the project's loader.
 */
import { parentPort } from 'node:worker_threads';
import type { PGlite, PGliteOptions, Transaction } from '@electric-sql/pglite';
import { openPglite } from './pglite-client.ts';
import type { PgliteReply, PgliteRequest, SerializedError } from './pglite-protocol.ts';

const port = parentPort!;
let pglite: PGlite | undefined;
let nextTransaction = 1;
/** Open transactions: their client, and how to end them (commit or roll back). */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean, replyTo: number) => void }>();

/** A sentinel thrown inside PGlite's transaction callback to make it roll back. */
const ROLLBACK = Symbol('rollback');

/** An error as plain data: its message, name, and PostgreSQL's fields (code, constraint, detail...). */
function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
      fields[key] = value as string | number | boolean | null;
  }
  return { name: error.name, message: error.message, fields };
}

const reply = (message: PgliteReply) => port.postMessage(message);

/** Opens the database and keeps a transaction open until the main side ends it. */
async function handle(request: PgliteRequest & { id: number }): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const options: PGliteOptions = { pgliteWasmModule: request.wasmModule };
      if (request.dataDir) options.dataDir = request.dataDir;
      if (request.loadDataDir) options.loadDataDir = new Blob([request.loadDataDir]);
      pglite = await openPglite(options);
      return null;
    }
    case 'query': {
      const options = { rowMode: request.rowMode ?? 'object' } as const;
      if (request.tx === undefined) return database().query(request.sql, request.params, options);
      const open = transactions.get(request.tx);
      if (!open) throw new Error(`PGlite worker: transaction ${request.tx} is not open`);
      return open.tx.query(request.sql, request.params, options);
    }
    case 'begin': {
      const id = nextTransaction++;
      // Replies to `begin` from inside the callback; the callback's outcome answers the `end` request.
      let endedBy = 0;
      database()
        .transaction(async (tx) => {
          const commit = await new Promise<boolean>((resolve) => {
            transactions.set(id, {
              tx,
              end: (commitIt, replyTo) => {
                endedBy = replyTo;
                resolve(commitIt);
              },
            });
            reply({ id: request.id, result: { tx: id } });
          });
          if (!commit) throw ROLLBACK;
        })
        .then(
          () => reply({ id: endedBy, result: null }),
          (error: unknown) =>
            error === ROLLBACK
              ? reply({ id: endedBy, result: null })
              : reply({ id: endedBy || request.id, error: serializeError(error) }),
        )
        .finally(() => transactions.delete(id));
      return undefined; // answered from the callback above
    }
    case 'end': {
      const open = transactions.get(request.tx);
      if (!open) throw new Error(`PGlite worker: transaction ${request.tx} is not open`);
      open.end(request.commit, request.id);
      return undefined; // answered when PGlite has committed or rolled back
    }
    case 'close': {
      await pglite?.close();
      pglite = undefined;
      return null;
    }
  }
}

function database(): PGlite {
  if (!pglite) throw new Error('PGlite worker: the database is not open');
  return pglite;
}

port.on('message', (request: PgliteRequest & { id: number }) => {
  handle(request).then(
    (result) => result !== undefined && reply({ id: request.id, result }),
    (error: unknown) => reply({ id: request.id, error: serializeError(error) }),
  );
});
