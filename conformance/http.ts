/**
 * The harness's HTTPS client: real TLS to the target (trusting its extra CA), reporting the negotiated
 * key-exchange group so checks can see X25519MLKEM768 on the wire. D-180: requests to one origin share a
 * token bucket (`--rate`), and a rate-limit answer (429 with Retry-After; JSON-RPC -32005 inside a 429, D-024)
 * is waited out and sent again, a bounded number of times, each retry noted in the running check's activity.
 */
import http from 'node:http';
import https from 'node:https';
import type { CheckRequest } from './catalogue.ts';
import { currentActivity, waitingFor } from './progress.ts';
import type { Target } from './targets/target.ts';

/** A response as checks see it. */
export type HttpResult = {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** The TLS group negotiated for the connection (e.g. X25519MLKEM768). */
  tlsGroup: string | undefined;
  /** The request, for reports. */
  request: CheckRequest;
};

/** Options of one request. */
export type HttpOptions = {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (serialised) or a raw string. */
  body?: unknown;
  /** TLS groups to offer (default: Node's, which lead with X25519MLKEM768). */
  groups?: string;
  timeoutMs?: number;
  /** Headers made afresh for each attempt (a signature over the current time), over `headers`. */
  sign?: () => Record<string, string>;
  /** Wait for the origin's token bucket first (default true). */
  paced?: boolean;
  /** Wait out and resend a rate-limit answer (default true). */
  retryLimited?: boolean;
};

/** For a check that probes a rate limit itself: sent at once, and its 429s returned as they are. */
export const PROBE_LIMIT = { paced: false, retryLimited: false } as const satisfies HttpOptions;

/** How the harness paces and retries (D-180). */
export type Pacing = {
  /** Requests per second per origin (a JSON-RPC batch counts one per entry); undefined: not paced. */
  rate: number | undefined;
  /** Resends of one request after rate-limit answers, at most. */
  maxRetries: number;
  /** The longest one wait for a Retry-After, in ms. */
  maxWaitMs: number;
};

/** The library's pacing: no rate and no resend, so a caller sees every answer as it came (tests, probes). */
const DEFAULT_PACING: Pacing = { rate: undefined, maxRetries: 0, maxWaitMs: 30_000 };

/** What `svckit conformance` runs with (D-180): a rate-limit answer is waited out and resent up to 8 times. */
export const RUN_PACING: Partial<Pacing> = { maxRetries: 8 };
let pacing: Pacing = { ...DEFAULT_PACING };
const origins = new Map<string, OriginGate>();

/**
 * Runs `work` with the harness's resends on (RUN_PACING, D-180) unless a pacing with resends is already set,
 * then restores the pacing it found: a catalogue run waits out a 429 like `svckit conformance` does.
 */
export async function withRunPacing<T>(work: () => Promise<T>): Promise<T> {
  if (pacing.maxRetries > 0) return work();
  const previous = pacing;
  pacing = { ...previous, ...RUN_PACING };
  try {
    return await work();
  } finally {
    pacing = previous;
  }
}

/** Sets the pacing of every later request (the CLI's `--rate`); unset fields take the defaults. */
export function setPacing(next: Partial<Pacing>): void {
  if (next.rate !== undefined && !(next.rate > 0 && Number.isFinite(next.rate)))
    throw new Error(`"rate" expected a positive number of requests per second, got ${next.rate}`);
  pacing = { ...DEFAULT_PACING, ...next };
  origins.clear();
}

/**
 * One origin's gate: a token bucket of `rate` tokens per second holding at most `rate` (one second's burst),
 * and a pause until the end of the last Retry-After, which every request to the origin honours.
 */
class OriginGate {
  private tokens: number;
  private last = Date.now();
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly rate: number | undefined) {
    this.tokens = rate ?? 0;
  }

  /** Holds every request of the origin until `until` (ms since the epoch). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** Resolves when `weight` tokens are taken (requests are served in arrival order). */
  take(weight: number, signal: AbortSignal | undefined): Promise<void> {
    const turn = this.queue.then(() => this.wait(weight, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async wait(weight: number, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now < this.pausedUntil) {
        await sleep(this.pausedUntil - now, signal);
        continue;
      }
      if (this.rate === undefined) return;
      const need = Math.min(weight, this.rate);
      this.tokens = Math.min(this.rate, this.tokens + ((now - this.last) / 1000) * this.rate);
      this.last = now;
      if (this.tokens >= need) {
        this.tokens -= need;
        return;
      }
      await sleep(Math.ceil(((need - this.tokens) / this.rate) * 1000), signal);
    }
  }
}

function gateOf(origin: string): OriginGate {
  let gate = origins.get(origin);
  if (!gate) {
    gate = new OriginGate(pacing.rate);
    origins.set(origin, gate);
  }
  return gate;
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Requests one body stands for against a JSON-RPC limit: one per batch entry (D-024), else one. */
function weightOf(body: unknown): number {
  return Array.isArray(body) ? Math.max(1, body.length) : 1;
}

/**
 * What makes `res` a rate-limit answer, or undefined: HTTP 429, with the JSON-RPC -32005 error and its data
 * when the body holds one (D-024). A -32005 outside a 429 (an oversized batch, D-051) is an answer, not a limit.
 */
export function rateLimitOf(res: Pick<HttpResult, 'status' | 'json'>): string | undefined {
  if (res.status !== 429) return undefined;
  const error = (res.json as { error?: { code?: unknown; data?: unknown } } | undefined)?.error;
  if (typeof error === 'object' && error !== null && error.code === -32005)
    return `HTTP 429, JSON-RPC -32005${error.data !== undefined ? ` (${JSON.stringify(error.data)})` : ''}`;
  return 'HTTP 429';
}

/** The wait a rate-limit answer asks for: Retry-After in seconds or as an HTTP date, else a doubling back-off. */
export function retryDelayMs(headers: Record<string, string>, attempt: number, now = Date.now()): number {
  const value = headers['retry-after']?.trim();
  let ms: number | undefined;
  if (value && /^\d+$/.test(value)) ms = Number(value) * 1000;
  else if (value && !Number.isNaN(Date.parse(value))) ms = Date.parse(value) - now;
  ms ??= 1000 * 2 ** Math.min(attempt, 4);
  return Math.min(pacing.maxWaitMs, Math.max(100, ms));
}

/**
 * Sends one HTTPS request (plain http only for a loopback node given by `--rpc`, D-192) to `url` (absolute, or relative to the target's base), paced by the origin's gate;
 * a rate-limit answer is waited out and sent again at most `maxRetries` times (D-180), unless `retryLimited` is false.
 */
export async function request(target: Target, url: string | URL, options: HttpOptions = {}): Promise<HttpResult> {
  const full = new URL(url, target.base);
  const activity = currentActivity();
  const gate = gateOf(full.origin);
  const what = `${options.method ?? (options.body === undefined ? 'GET' : 'POST')} ${full.pathname}`;
  for (let attempt = 0; ; attempt++) {
    if (options.paced !== false) await gate.take(weightOf(options.body), activity?.signal);
    const attemptOptions = options.sign ? { ...options, headers: { ...options.headers, ...options.sign() } } : options;
    const res = await waitingFor(`an answer to ${what}`, send(target, full, attemptOptions, activity?.signal));
    const limit = options.retryLimited === false ? undefined : rateLimitOf(res);
    if (!limit) return res;
    if (attempt >= pacing.maxRetries) {
      activity?.retries.push(`${what}: ${limit}; gave up after ${attempt} retries`);
      return res;
    }
    const delay = retryDelayMs(res.headers, attempt);
    activity?.retries.push(`${what}: ${limit}; retry ${attempt + 1} after ${delay} ms`);
    gate.pause(Date.now() + delay);
    await waitingFor(`the end of a Retry-After of ${delay} ms from ${full.origin}`, sleep(delay, activity?.signal));
  }
}

/** One exchange, no retry. */
function send(target: Target, full: URL, options: HttpOptions, signal: AbortSignal | undefined): Promise<HttpResult> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(body !== undefined && typeof options.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const record: CheckRequest = {
    method,
    url: full.href,
    headers,
    ...(body !== undefined ? { body: options.body } : {}),
  };
  // Plain http reaches only a loopback JSON-RPC node (conformance/targets/rpc.ts); it has no TLS group.
  const transport = full.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      full,
      {
        method,
        headers,
        ca: target.caCert,
        ...(options.groups ? { ecdhCurve: options.groups } : {}),
        agent: false,
        timeout: options.timeoutMs ?? 15_000,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const socket = res.socket as Partial<import('node:tls').TLSSocket>;
          resolve({
            status: res.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
            ),
            text,
            json,
            tlsGroup: (socket.getEphemeralKeyInfo?.() as { name?: string } | null)?.name,
            request: record,
          });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${full.href} within ${options.timeoutMs ?? 15_000} ms`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The chain JSON-RPC endpoint of `target`: the node given by `--rpc` (D-192), else `{base_url}/rpc`. */
export function rpcUrl(target: Target): URL {
  if (target.rpc) return target.rpc;
  if (!target.base) throw new Error('the target has no chain JSON-RPC endpoint (no base URL, no --rpc)');
  return new URL('rpc', target.base);
}

/** Calls a JSON-RPC method on the target's chain endpoint ({@link rpcUrl}). */
export function rpc(
  target: Target,
  method: string,
  params: unknown[] = [],
  id: number | string = 1,
): Promise<HttpResult> {
  return request(target, rpcUrl(target), { body: { jsonrpc: '2.0', id, method, params } });
}
