/**
 * One HTTPS POST of a delivery, timed on the injectable clock (D-052: "The 10-second clock starts when the
 * connection attempt starts and stops when the response status line and headers arrive. Connection errors,
 * TLS errors, 3xx, 4xx, 5xx and time-outs are failures"). Redirects are never followed (D-020). Receivers
 * are HTTPS only (D-019); trust is the default CA store plus the CAs the stack is given (D-102).
 */
import https from 'node:https';
import type { Clock } from '@svckit/sdk/clock';
import { checkedLookup, DESTINATION_REFUSED, literalRefusal, systemResolver, type Resolver } from './destination.ts';
import { RESPONSE_TIMEOUT_MS } from './schedule.ts';

/** What one attempt observed. */
export type AttemptResult = {
  /** Clock time the request started (ms). */
  startedAt: number;
  /** Clock ms until the status line and headers arrived, or until the failure. */
  durationMs: number;
  /** The HTTP status received; null on a time-out, connection or TLS error. */
  responseStatus: number | null;
  /** Transport failure detail; null when a status was received. */
  error: string | null;
  /** spec: "A 2xx answer within 10 s means delivered"; anything else is a failure. */
  success: boolean;
};

/** Options of {@link WebhookTransport}. */
export type TransportOptions = {
  /** PEM certificates trusted for receivers. */
  ca: string[];
  /** Sockets kept per receiver origin (the dispatcher's concurrency). */
  maxSockets: number;
  /** The response limit; spec value 10 s. Only tests of the transport itself change it. */
  timeoutMs?: number;
  /** How often (real ms) in-flight attempts are compared with the clock. */
  watchMs?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** D-143: also connect to loopback, private and link-local addresses (SVC_WEBHOOK_ALLOW_PRIVATE). Default false. */
  allowPrivate?: boolean;
  /** Resolves receiver host names; the system resolver by default (tests play DNS with it). */
  resolver?: Resolver;
};

type Watched = { startedAt: number; expire(): void };

const TIMEOUT_TEXT = 'no response within 10 seconds';
/** D-143: what an attempt records when the URL is unusable; the URL itself is not repeated. */
const INVALID_URL_TEXT = 'not an https URL';

/** Posts deliveries over keep-alive HTTPS connections; a watchdog enforces the limit on the injectable clock. */
export class WebhookTransport {
  private readonly agent: https.Agent;
  private readonly inFlight = new Set<Watched>();
  private watchdog: NodeJS.Timeout | undefined;
  private readonly timeoutMs: number;

  /** Uses `clock` for every duration and for the 10-second limit. */
  constructor(
    private readonly clock: Clock,
    private readonly options: TransportOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? RESPONSE_TIMEOUT_MS;
    // D-143: every connection resolves through the check, and connects to the addresses it checked.
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: options.maxSockets,
      ca: options.ca,
      lookup: checkedLookup(options.resolver ?? systemResolver, options.allowPrivate ?? false),
    });
  }

  /** POSTs `body` to `url` with `headers`; never throws. */
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const startedAt = this.clock.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (responseStatus: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(watched);
        const durationMs = Math.max(0, this.clock.now() - startedAt);
        if (durationMs > this.timeoutMs) {
          // The status line arrived, but later than the limit: the spec's "time-out", whatever the status.
          resolve({ startedAt, durationMs, responseStatus: null, error: TIMEOUT_TEXT, success: false });
          return;
        }
        const success = responseStatus !== null && responseStatus >= 200 && responseStatus < 300;
        resolve({ startedAt, durationMs, responseStatus, error, success });
      };
      let target: URL;
      try {
        target = new URL(url);
        if (target.protocol !== 'https:') throw new Error(INVALID_URL_TEXT);
      } catch {
        resolve({ startedAt, durationMs: 0, responseStatus: null, error: INVALID_URL_TEXT, success: false });
        return;
      }
      const refusal = literalRefusal(target.hostname, this.options.allowPrivate ?? false);
      if (refusal) {
        resolve({ startedAt, durationMs: 0, responseStatus: null, error: describe(refusal), success: false });
        return;
      }
      const request = https.request(
        target,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            // D-020: "POST with Content-Type: application/json; charset=utf-8"
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': this.options.userAgent ?? 'svckit-webhooks',
            ...headers,
          },
        },
        (response) => {
          finish(response.statusCode ?? null, null);
          // The verdict is made on the status line; the body is read and dropped so the socket can be reused.
          response.resume();
          response.on('error', () => undefined);
        },
      );
      const watched: Watched = {
        startedAt,
        expire: () => {
          request.destroy();
          finish(null, TIMEOUT_TEXT);
        },
      };
      request.on('error', (error: NodeJS.ErrnoException) => finish(null, describe(error)));
      // Headers and body leave at once (no Nagle wait on a reused connection).
      request.setNoDelay(true);
      this.inFlight.add(watched);
      this.watch();
      request.end(body);
    });
  }

  /** Attempts still waiting for their status line. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Ends every attempt in flight as a failure (stopping) and closes the idle connections. */
  close(): void {
    for (const watched of [...this.inFlight]) watched.expire();
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
    this.agent.destroy();
  }

  /** One shared interval, running only while attempts are in flight. */
  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      const now = this.clock.now();
      for (const watched of [...this.inFlight]) if (now - watched.startedAt > this.timeoutMs) watched.expire();
      if (this.inFlight.size === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
      }
    }, this.options.watchMs ?? 20);
    this.watchdog.unref();
  }
}

/**
 * D-143: the attempt record's text for a transport failure, one of a few fixed phrases. It never carries an
 * address, port, host name or errno detail, and does not tell a refused port from an unreachable host, so
 * the attempt history cannot map a network for whoever can register endpoints.
 */
function describe(error: NodeJS.ErrnoException): string {
  if (error.code === DESTINATION_REFUSED) return 'destination not allowed';
  if (error.code === 'ENOTFOUND' || error.code?.startsWith('EAI_')) return 'host not found';
  if (
    error.code?.startsWith('ERR_TLS') ||
    error.code?.startsWith('ERR_SSL') ||
    /certificate|SSL|TLS|CERT/i.test(`${error.code ?? ''} ${error.message}`)
  )
    return 'TLS handshake failed';
  return 'connection failed';
}
