/**
 * The client matrix's record (D-260): one row per client and call, each bounded by a time-out, with the answer
 * the client got. A call that needs the result of one that failed is not run and counts as failed, naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One call of one client and what came of it. */
export type Row = { client: string; call: string; ok: boolean; answer: string };

/** The longest any one call may take, in ms: a send waits for its block (2 s) and a client's polling (4 s). */
export const CALL_TIMEOUT_MS = 60_000;

/** The Note contract (note.sol): its ABI and hand-assembled bytecode (note.json). */
export const NOTE = JSON.parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'note.json'), 'utf8'),
) as { abi: readonly Record<string, unknown>[]; bytecode: `0x${string}`; deployedBytecode: `0x${string}` };

/** What the matrix gives each client: the stack's URLs and a sender the administrator allow-listed and funded. */
export type MatrixContext = {
  /** {base}/rpc on the base origin (hybrid TLS). */
  rpcUrl: string;
  /** /rpc on the classical-TLS listener (D-259). */
  classicalRpcUrl: string;
  /** wss://…/ws?access_token=… on the base origin: a key holding chain:subscribe, in the URL (D-016, D-261). */
  wsUrl: string;
  /** The development CA's file, for the clients that run as processes. */
  caCertPath: string;
  /** A Note deployed by the matrix itself (slot 0 holds 7), for the reads. */
  note: `0x${string}`;
  /** Allow-lists and funds a fresh key for one client; returns it. */
  fundedKey(client: string): Promise<`0x${string}`>;
};

/** The one-line form of an error or answer, for the table. */
export function describe(value: unknown): string {
  // A WebSocket's ErrorEvent (viem's webSocket transport rejects with it) carries its text in `message`.
  const event = value as { message?: unknown; error?: unknown } | null;
  if (!(value instanceof Error) && typeof event?.message === 'string' && 'error' in event)
    return describe(event.error instanceof Error ? event.error : event.message);
  const text =
    value instanceof Error
      ? `${value.message}${value.cause instanceof Error ? ` (${value.cause.message})` : typeof value.cause === 'object' && value.cause !== null ? ` (${describe(value.cause)})` : ''}`
      : typeof value === 'string'
        ? value
        : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  const line = (text ?? String(value)).replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** Rejects with a time-out error once `ms` have passed without `promise` settling. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The rows of one client: `call` runs a step and records it; a step whose input failed is recorded as not run. */
export class ClientRun {
  readonly rows: Row[] = [];
  constructor(readonly client: string) {}

  /**
   * Runs `step` within {@link CALL_TIMEOUT_MS}; `check` turns its result into the answer shown, throwing when it
   * is wrong. Resolves with the result, or undefined when the step failed (and was recorded so).
   */
  async call<T>(name: string, step: () => Promise<T>, check: (result: T) => string): Promise<T | undefined> {
    try {
      const result = await within(step(), CALL_TIMEOUT_MS, `${this.client} ${name}`);
      this.rows.push({ client: this.client, call: name, ok: true, answer: check(result) });
      return result;
    } catch (error) {
      this.rows.push({ client: this.client, call: name, ok: false, answer: describe(error) });
      return undefined;
    }
  }

  /** Records `name` as failed without running it: it needed what `missing` would have given. */
  notRun(name: string, missing: string): void {
    this.rows.push({
      client: this.client,
      call: name,
      ok: false,
      answer: `not run: it needs ${missing}, which failed`,
    });
  }
}

/** Throws a clear error unless `condition` holds. */
export function expectThat(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** The result table, one row per call, as plain text. */
export function formatTable(rows: readonly Row[]): string {
  const widths = [
    Math.max(6, ...rows.map((r) => r.client.length)),
    Math.max(4, ...rows.map((r) => r.call.length)),
  ] as const;
  const line = (client: string, call: string, result: string, answer: string) =>
    `${client.padEnd(widths[0])}  ${call.padEnd(widths[1])}  ${result.padEnd(6)}  ${answer}`;
  return [
    line('client', 'call', 'result', 'answer'),
    ...rows.map((r) => line(r.client, r.call, r.ok ? 'ok' : 'FAIL', r.answer)),
  ].join('\n');
}

/**
 * Resolves with the first error that escapes with no one awaiting it (a client's background polling) while it
 * is armed; `disarm` stops listening.
 */
export function escapedError(): { error: Promise<never>; readonly last: unknown; disarm(): void } {
  let reject: (error: unknown) => void = () => {};
  const error = new Promise<never>((_resolve, fail) => {
    reject = fail;
  });
  error.catch(() => undefined);
  const escaped = {
    error,
    last: undefined as unknown,
    disarm: () => process.off('unhandledRejection', onEscape),
  };
  const onEscape = (reason: unknown) => {
    escaped.last = reason;
    reject(reason);
  };
  process.on('unhandledRejection', onEscape);
  return escaped;
}
