/**
 * The Prometheus metrics of one stack (D-276): one prom-client Registry per stack, never prom-client's global
 * one, so several stacks in one process (tests, a cluster of instances) each count their own. Every label value
 * comes from a fixed set (D-278): no ids, addresses or paths with parameters.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RateCounter } from '../http/rate-window.ts';

/** D-278: the label value of a request that matched no route. */
export const UNMATCHED = 'unmatched';
/** D-278: the label value of anything outside its fixed set (a method, a code). */
export const OTHER = 'other';

/** D-278: HTTP methods that keep their name as a label; any other is `other`. */
export const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The origins of the stack (app.ts). */
export type OriginName = 'base' | 'wallet' | 'site';

/** D-277: the surfaces whose refusals `svckit_rate_limit_refusals_total` counts. */
export const SURFACES = [
  'rpc',
  'ws',
  'explorer',
  'docs',
  'institutional',
  'admin',
  'metrics',
  'wallet',
  'site',
  OTHER,
] as const;
export type Surface = (typeof SURFACES)[number];

/** D-279: the kinds of upstream node failure (src/node/upstream.ts). */
export const UPSTREAM_ERROR_KINDS = ['unreachable', 'timeout', 'bad_answer'] as const;
/** D-279: the scrape-time sources, each bounded by a time-out. */
export const COLLECT_SOURCES = ['database', 'redis', 'transfers', 'webhooks', 'chain', 'evidence'] as const;
export const DEPENDENCIES = ['database', 'redis'] as const;

/** Every metric of a stack, in its registry. */
export class StackMetrics {
  readonly registry = new Registry();
  readonly http = new Histogram({
    name: 'svckit_http_request_duration_seconds',
    help: 'HTTP requests by origin, route template, method and status, with their duration (D-278).',
    labelNames: ['origin', 'route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'svckit_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (HTTP 429, and /ws frames over the D-024 limit), by surface.',
    labelNames: ['surface'] as const,
    registers: [this.registry],
  });
  readonly transfers = new Gauge({
    name: 'svckit_transfers',
    help: 'Stored transfers by status (read at scrape time; counted up to 1000000 per status, D-279).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly oldestPending = new Gauge({
    name: 'svckit_transfer_oldest_pending_age_seconds',
    help: 'Age of the oldest pending transfer; 0 when none is pending.',
    registers: [this.registry],
  });
  readonly deliveries = new Gauge({
    name: 'svckit_webhook_deliveries',
    help: 'Webhook delivery jobs by state; state="dead" is the DEAD count (counted up to 1000000 per state, D-279).',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'svckit_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this instance, by attempt number in the round (1-5) and outcome.',
    labelNames: ['attempt', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly outboxLag = new Gauge({
    name: 'svckit_webhook_outbox_lag_seconds',
    help: 'How long the longest-waiting due delivery has been due; 0 when none is due.',
    registers: [this.registry],
  });
  readonly chainHead = new Gauge({
    name: 'svckit_chain_head_block',
    help: 'The chain head block number.',
    registers: [this.registry],
  });
  readonly sinceBlock = new Gauge({
    name: 'svckit_chain_seconds_since_last_block',
    help: 'Seconds since the head block was sealed (its timestamp).',
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: 'svckit_upstream_errors_total',
    help: 'Failed calls to the chain node, by kind (unreachable, timeout, bad_answer).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly rpcCalls = new Counter({
    name: 'svckit_jsonrpc_calls_total',
    help: 'JSON-RPC requests from clients (/rpc and /ws), by method (known methods, else "other") and error code ("ok" for a result).',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });
  readonly wsConnections = new Gauge({
    name: 'svckit_websocket_connections',
    help: 'Open /ws connections.',
    registers: [this.registry],
  });
  readonly wsSubscriptions = new Gauge({
    name: 'svckit_websocket_subscriptions',
    help: 'Open eth_subscribe subscriptions over /ws.',
    registers: [this.registry],
  });
  readonly roundTrip = new Gauge({
    name: 'svckit_dependency_round_trip_seconds',
    help: 'Round-trip time of a trivial call at scrape time (database: select 1, redis: PING).',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly dependencyErrors = new Counter({
    name: 'svckit_dependency_errors_total',
    help: 'Failed or timed-out scrape-time round trips, by dependency.',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly evidenceAge = new Gauge({
    name: 'svckit_evidence_document_age_seconds',
    help: 'Age of the evidence document (from its "generated" time); NaN when the site has none.',
    registers: [this.registry],
  });
  readonly collectFailures = new Counter({
    name: 'svckit_metrics_collect_failures_total',
    help: 'Scrape-time reads that failed or passed their time-out, by source (their gauges keep the last value).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  /** D-278: the route templates each origin registered (http.ts): the `route` label's values besides `unmatched`. */
  readonly routes = new Map<OriginName, Set<string>>();

  /** Counts a finished webhook attempt: its number in the round (1-5, D-060) and outcome. */
  attempted(number: number, success: boolean): void {
    this.attempts.inc({
      attempt: number >= 1 && number <= 5 ? String(number) : OTHER,
      outcome: success ? 'success' : 'failure',
    });
  }

  /** `limiter`, with each refusal it gives counted for `surface` (the /ws frames, which get no HTTP 429). */
  countRefusals(limiter: RateCounter, surface: Surface): RateCounter {
    const refused = this.refusals.labels(surface);
    return {
      limit: limiter.limit,
      take: async (key, weight) => {
        const verdict = await limiter.take(key, weight);
        if (!verdict.allowed && !verdict.unavailable) refused.inc();
        return verdict;
      },
    };
  }
}
