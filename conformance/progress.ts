/**
 * What the harness is doing, as it does it: the running check's activity (what it waits for, the retries its
 * requests needed, the signal that ends it at its deadline; D-181) and the live progress line on stderr (D-182).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The activity of one running check (or phase), shared by everything it awaits. */
export type Activity = {
  /** The check id or phase name. */
  name: string;
  /** What it waits for now (a request, a delivery), for the deadline message. */
  waitingFor: string | undefined;
  /** One line per retried request (429, -32005), kept with the check's result. */
  retries: string[];
  /** Aborted when the check's deadline passes or the run is interrupted. */
  signal: AbortSignal;
};

const current = new AsyncLocalStorage<Activity>();

/** Runs `fn` as `activity`: requests and waits made inside it are recorded there. */
export function withActivity<T>(activity: Activity, fn: () => Promise<T>): Promise<T> {
  return current.run(activity, fn);
}

/** The activity of the caller, if it runs inside a check or phase. */
export function currentActivity(): Activity | undefined {
  return current.getStore();
}

/** Records what the caller waits for until `promise` settles (the deadline message names it). */
export async function waitingFor<T>(what: string, promise: Promise<T>): Promise<T> {
  const activity = current.getStore();
  if (!activity) return promise;
  const before = activity.waitingFor;
  activity.waitingFor = what;
  try {
    return await promise;
  } finally {
    if (activity.waitingFor === what) activity.waitingFor = before;
  }
}

/** Counts so far, stated separately (a skip is never a pass). */
export type Counts = { passed: number; failed: number; skipped: number };

/** Where the runner reports progress. */
export interface ProgressSink {
  /** A check or phase starts; `index` of `total` (1-based) for checks. */
  start(name: string, index?: number, total?: number): void;
  /** A check ended with `status`; `counts` include it. */
  end(name: string, status: keyof Counts, counts: Counts): void;
  /** A free-form line (a phase's outcome, cleanup). */
  note(line: string): void;
  /** Ends the progress display (clears the updating line on a TTY). */
  done(): void;
  /** The activity of the check just started, whose waits the heartbeat names (each run its own, D-232). */
  watch?(activity: Activity): void;
}

/** A sink that reports nothing (`--quiet`). */
export const silentProgress: ProgressSink = { start() {}, end() {}, note() {}, done() {} };

const counted = (c: Counts) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
const LABEL = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/** How often a plain-line sink says that a long check is still running. */
export const HEARTBEAT_MS = 15_000;

/**
 * Progress on a stream (stderr): on a TTY one line rewritten in place (the check running and the counts so far);
 * otherwise plain lines: one as each check ends, with the counts, and one every HEARTBEAT_MS while a check runs
 * longer, so the log of a CI run always shows where the run is.
 */
export function streamProgress(stream: NodeJS.WriteStream, clock: () => number = Date.now): ProgressSink {
  const tty = stream.isTTY === true;
  const started = clock();
  let counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  let lineShown = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let watched: Activity | undefined;
  const elapsed = () => `${Math.round((clock() - started) / 1000)} s`;
  const clear = () => {
    if (tty && lineShown) stream.write('\r\x1b[2K');
    lineShown = false;
  };
  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
  };
  return {
    start(name, index, total) {
      const position = index !== undefined && total !== undefined ? `[${index}/${total}] ` : '';
      const text = `conformance ${elapsed()} ${position}${name} … (${counted(counts)})`;
      stopHeartbeat();
      if (tty) {
        const width = Math.max(20, (stream.columns ?? 100) - 1);
        stream.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
        lineShown = true;
        return;
      }
      const since = clock();
      heartbeat = setInterval(() => {
        const waiting = watched?.name === name ? watched.waitingFor : undefined;
        stream.write(
          `conformance ${elapsed()} ${position}${name} still running after ${Math.round((clock() - since) / 1000)} s${waiting ? `, waiting for ${waiting}` : ''}\n`,
        );
      }, HEARTBEAT_MS);
      heartbeat.unref();
    },
    end(name, status, now) {
      stopHeartbeat();
      counts = { ...now };
      if (!tty) stream.write(`conformance ${elapsed()} ${LABEL[status]} ${name} (${counted(counts)})\n`);
    },
    note(line) {
      clear();
      stream.write(`conformance ${elapsed()} ${line}\n`);
    },
    done() {
      stopHeartbeat();
      clear();
    },
    watch(activity) {
      watched = activity;
    },
  };
}
