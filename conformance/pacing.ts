/**
 * How one conformance run keeps to a deployment's rate limits (D-180, D-234): a `Pacer` per run holds a gate per
 * origin, shared by the hand-written checks and the generated cases. A gate paces at `--rate` when one is given,
 * else adaptively (unpaced until the origin's first rate-limit answer, then at what it accepted); a rate-limit
 * answer (HTTP 429, with or without JSON-RPC -32005, D-024) pauses the whole origin until its Retry-After has
 * passed and is sent again, a bounded number of times. The run waits out a rate-limit answer; it never judges one.
 */

/** How a pacer paces and resends. */
export type PacingOptions = {
  /** Requests per second per origin, fixed (`--rate`); absent: the adaptive pace (D-234). */
  rate?: number;
  /** Resends of one request after rate-limit answers, at most (default 8, D-180). */
  maxRetries?: number;
  /** The longest one wait for a Retry-After, in ms (default DEFAULT_MAX_WAIT_MS). */
  maxWaitMs?: number;
};

/** What a pacer did for one origin, for the run report. */
export type OriginStats = {
  /** Rate-limit answers waited out and sent again. */
  rateLimited: number;
  /** Wall-clock ms during which requests to the origin were held back (a Retry-After pause or the pace). */
  waitedMs: number;
  /** The pace now, in requests per second; undefined while the origin is unpaced. */
  rate: number | undefined;
};

/** An answer as the pacer judges it. */
export type Answer = { status: number; headers: Record<string, string>; json: unknown };

/** One attempt of a request, told to its sender once the pacer knows whether it sends it again. */
export type Attempt<R> = {
  response?: R;
  error?: unknown;
  /** When it was sent, ms since the epoch. */
  startedAt: number;
  durationMs: number;
  /** This answer was a rate limit, waited out, and the request is sent again. */
  rateLimited: boolean;
};

/** One request sent through a pacer. */
export type PacedRequest<R extends Answer> = {
  /** The origin whose gate it goes through. */
  origin: string;
  /** Names it in retry notes and waits (`GET /api/stats`). */
  label: string;
  /** Requests it stands for against a limit ({@link weightOf}). */
  weight: number;
  /** Sends it once. */
  send: () => Promise<R>;
  /** Waits for the origin's pace first (default true). */
  paced?: boolean;
  /** Waits out and sends again a rate-limit answer (default true). */
  resend?: boolean;
  /** Ends its waits (a check's deadline, D-181). */
  signal?: AbortSignal;
  /** Told each attempt. */
  attempted?: (attempt: Attempt<R>) => void;
  /** Told one line per rate-limit answer: the resend and its wait, or giving up (a check's `retries`). */
  note?: (line: string) => void;
  /** Wraps each wait, so the caller can say what it waits for (D-181). */
  waiting?: <T>(what: string, promise: Promise<T>) => Promise<T>;
};

/** The longest one wait for a Retry-After by default (D-180). */
export const DEFAULT_MAX_WAIT_MS = 30_000;
/** Resends of one request by default in a run (D-180). */
const RUN_MAX_RETRIES = 8;
/** The window over which an origin's accepted answers set its first pace (D-234). */
const WINDOW_MS = 1000;
/** The share of what the origin accepted in the last WINDOW_MS that sets the first pace (D-234). */
const FIRST_PACE_SHARE = 0.9;
/** The slowest adaptive pace, requests per second (D-234). */
const MIN_RATE = 0.5;

/** One run's pacing: a gate per origin, made on first use. */
export class Pacer {
  readonly rate: number | undefined;
  readonly maxRetries: number;
  readonly maxWaitMs: number;
  private readonly gates = new Map<string, OriginGate>();

  constructor(options: PacingOptions = {}) {
    const { rate, maxRetries = RUN_MAX_RETRIES, maxWaitMs = DEFAULT_MAX_WAIT_MS } = options;
    if (rate !== undefined && !(rate > 0 && Number.isFinite(rate)))
      throw new Error(`"rate" expected a positive number of requests per second, got ${rate}`);
    if (!(Number.isInteger(maxRetries) && maxRetries >= 0))
      throw new Error(`"maxRetries" expected a whole number of resends, got ${maxRetries}`);
    if (!(maxWaitMs > 0)) throw new Error(`"maxWaitMs" expected a positive number of ms, got ${maxWaitMs}`);
    this.rate = rate;
    this.maxRetries = maxRetries;
    this.maxWaitMs = maxWaitMs;
  }

  /** The library's pacer: no rate and no resend, so its caller sees every answer as it came (tests, probes). */
  static library(): Pacer {
    return new Pacer({ maxRetries: 0 });
  }

  /** What the pacer did per origin so far. */
  stats(): Record<string, OriginStats> {
    return Object.fromEntries([...this.gates].map(([origin, gate]) => [origin, gate.stats()]));
  }

  /**
   * Sends `request` through its origin's gate: waits for the pace (unless `paced` is false), and waits out and
   * sends again a rate-limit answer at most `maxRetries` times (unless `resend` is false). Returns the last answer.
   */
  async send<R extends Answer>(request: PacedRequest<R>): Promise<R> {
    const { label, origin, signal } = request;
    const waiting = request.waiting ?? (<T>(_what: string, promise: Promise<T>) => promise);
    const resend = request.resend !== false && this.maxRetries > 0;
    // A probe of a limit (neither paced nor resent) goes past the gates and teaches them nothing.
    const gate = request.paced === false && !resend ? undefined : this.gateOf(origin);
    for (let attempt = 0; ; attempt++) {
      if (gate && request.paced !== false)
        await waiting(`its turn at the pace of ${origin}`, gate.take(request.weight, signal));
      const ticket = gate?.ticket() ?? 0;
      const startedAt = Date.now();
      const started = performance.now();
      let response: R;
      try {
        response = await waiting(`an answer to ${label}`, request.send());
      } catch (error) {
        request.attempted?.({ error, startedAt, durationMs: performance.now() - started, rateLimited: false });
        throw error;
      }
      const durationMs = performance.now() - started;
      const limit = resend ? rateLimitOf(response) : undefined;
      if (!limit || attempt >= this.maxRetries) {
        if (limit) request.note?.(`${label}: ${limit}; gave up after ${attempt} retries`);
        else gate?.accepted(ticket, request.weight);
        request.attempted?.({ response, startedAt, durationMs, rateLimited: false });
        return response;
      }
      // D-252: a Retry-After beyond the longest wait is a quota (e.g. e-mail codes per hour), not a pace: the
      // answer is given up at once, and the origin is not held, so the rest of the run goes on.
      const asked = askedWaitMs(response.headers);
      if (asked !== undefined && asked > this.maxWaitMs) {
        request.note?.(
          `${label}: ${limit}; gave up at once: Retry-After ${Math.ceil(asked / 1000)} s is beyond the longest wait of ${Math.round(this.maxWaitMs / 1000)} s`,
        );
        request.attempted?.({ response, startedAt, durationMs, rateLimited: false });
        return response;
      }
      const delay = retryDelayMs(response.headers, attempt, this.maxWaitMs);
      request.note?.(`${label}: ${limit}; retry ${attempt + 1} after ${delay} ms`);
      request.attempted?.({ response, startedAt, durationMs, rateLimited: true });
      const held = gate as OriginGate;
      held.limited(ticket, Date.now() + delay);
      await waiting(`the end of a Retry-After of ${delay} ms from ${origin}`, held.hold(sleep(delay, signal)));
    }
  }

  private gateOf(origin: string): OriginGate {
    let gate = this.gates.get(origin);
    if (!gate) {
      gate = new OriginGate(this.rate);
      this.gates.set(origin, gate);
    }
    return gate;
  }
}

/**
 * One origin's gate. A token bucket at the pace, holding one second's burst at a fixed rate and one request at
 * the adaptive pace (evenly spaced); a pause until the end of the last Retry-After, which every request to the
 * origin honours; and the adaptive pace (D-234): none until the first rate-limit answer, then nine tenths of the
 * requests the origin accepted in the last second (evenly spaced, so a fixed window never holds more); halved on a rate-limit answer to a request sent after the last change
 * (so answers already in flight count once); one more request per second after as many accepted answers in a
 * row as the pace.
 */
class OriginGate {
  private rate: number | undefined;
  private tokens: number;
  private last = Date.now();
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  /** Requests sent so far; the ticket of the last one sent before the pace last changed. */
  private sent = 0;
  private changedAt = 0;
  private streak = 0;
  /** Accepted answers (time, weight) within WINDOW_MS, while no pace is set yet. */
  private window: [number, number][] = [];
  private rateLimited = 0;
  private waitedMs = 0;
  private holding = 0;
  private holdingSince = 0;

  constructor(private readonly fixed: number | undefined) {
    this.rate = fixed;
    this.tokens = fixed ?? 0;
  }

  stats(): OriginStats {
    const ongoing = this.holding > 0 ? Date.now() - this.holdingSince : 0;
    return { rateLimited: this.rateLimited, waitedMs: this.waitedMs + ongoing, rate: this.rate };
  }

  /** Resolves when `weight` tokens are taken (requests are served in arrival order). */
  take(weight: number, signal: AbortSignal | undefined): Promise<void> {
    const turn = this.queue.then(() => this.wait(weight, signal));
    this.queue = turn.catch(() => undefined);
    return this.hold(turn);
  }

  /** Numbers a request as it is sent. */
  ticket(): number {
    return ++this.sent;
  }

  /** An answer that is not a rate limit, to the request of `ticket`. */
  accepted(ticket: number, weight: number): void {
    const now = Date.now();
    if (this.rate === undefined) {
      this.window.push([now, weight]);
      while ((this.window[0]?.[0] ?? now) < now - WINDOW_MS) this.window.shift();
      return;
    }
    if (this.fixed !== undefined || ticket <= this.changedAt) return;
    this.streak += 1;
    if (this.streak >= Math.ceil(this.rate)) {
      this.rate += 1;
      this.streak = 0;
    }
  }

  /** A rate-limit answer to the request of `ticket`, waited out until `until` (ms since the epoch). */
  limited(ticket: number, until: number): void {
    this.rateLimited += 1;
    this.pausedUntil = Math.max(this.pausedUntil, until);
    if (this.fixed !== undefined) return;
    if (this.rate === undefined) {
      const since = Date.now() - WINDOW_MS;
      const accepted = this.window.reduce((n, [at, weight]) => (at >= since ? n + weight : n), 0);
      this.rate = Math.max(1, FIRST_PACE_SHARE * accepted);
      this.window = [];
    } else if (ticket > this.changedAt) this.rate = Math.max(MIN_RATE, this.rate / 2);
    else return;
    this.changedAt = this.sent;
    this.streak = 0;
  }

  /** Counts the time `promise` holds a request back in the origin's `waitedMs`. */
  async hold<T>(promise: Promise<T>): Promise<T> {
    if (this.holding++ === 0) this.holdingSince = Date.now();
    try {
      return await promise;
    } finally {
      if (--this.holding === 0) this.waitedMs += Date.now() - this.holdingSince;
    }
  }

  private async wait(weight: number, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now < this.pausedUntil) {
        await sleep(this.pausedUntil - now, signal);
        continue;
      }
      const rate = this.rate;
      if (rate === undefined) return;
      const burst = this.fixed ?? 1;
      this.tokens = Math.min(burst, this.tokens + ((now - this.last) / 1000) * rate);
      this.last = now;
      // A request heavier than the burst goes when the bucket is full and leaves it in debt.
      const need = Math.min(weight, burst);
      if (this.tokens >= need) {
        this.tokens -= weight;
        return;
      }
      await sleep(Math.ceil(((need - this.tokens) / rate) * 1000), signal);
    }
  }
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Requests one body stands for against a JSON-RPC limit: one per batch entry (D-024), else one. */
export function weightOf(body: unknown): number {
  let value = body;
  if (typeof body === 'string' && body.trimStart().startsWith('[')) {
    try {
      value = JSON.parse(body);
    } catch {
      return 1;
    }
  }
  return Array.isArray(value) ? Math.max(1, value.length) : 1;
}

/**
 * What makes `res` a rate-limit answer, or undefined: HTTP 429, with the JSON-RPC -32005 error and its data
 * when the body holds one (D-024). A -32005 outside a 429 (an oversized batch, D-051) is an answer, not a limit.
 */
export function rateLimitOf(res: { status: number; json: unknown }): string | undefined {
  if (res.status !== 429) return undefined;
  const error = (res.json as { error?: { code?: unknown; data?: unknown } } | undefined)?.error;
  if (typeof error === 'object' && error !== null && error.code === -32005)
    return `HTTP 429, JSON-RPC -32005${error.data !== undefined ? ` (${JSON.stringify(error.data)})` : ''}`;
  return 'HTTP 429';
}

/**
 * The wait a rate-limit answer asks for: Retry-After in seconds or as an HTTP date, else a doubling back-off
 * (1, 2, 4, 8, 16 s); at least 100 ms, at most `maxWaitMs` (D-180).
 */
export function retryDelayMs(
  headers: Record<string, string>,
  attempt: number,
  maxWaitMs: number,
  now = Date.now(),
): number {
  const ms = askedWaitMs(headers, now) ?? 1000 * 2 ** Math.min(attempt, 4);
  return Math.min(maxWaitMs, Math.max(100, ms));
}

/** The wait a Retry-After asks for in ms (seconds or an HTTP date), or undefined when there is none. */
export function askedWaitMs(headers: Record<string, string>, now = Date.now()): number | undefined {
  const value = headers['retry-after']?.trim();
  if (value && /^\d+$/.test(value)) return Number(value) * 1000;
  if (value && !Number.isNaN(Date.parse(value))) return Date.parse(value) - now;
  return undefined;
}
