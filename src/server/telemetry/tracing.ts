/**
 * OpenTelemetry traces of one stack (D-265): off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, then spans go to
 * `<endpoint>/v1/traces` as OTLP/HTTP JSON, named by OTEL_SERVICE_NAME. Each stack owns its tracer provider
 * and its active-span store (an AsyncLocalStorage): nothing is registered globally, so several stacks in one
 * process (tests, the conformance harness) never mix their spans. Off, there is no Tracing at all, the SDK and
 * the exporter are not even loaded, and every instrumented place costs one property read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  defaultTextMapSetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TransferSpans } from './transfer-spans.ts';

/** The tracing settings (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME). */
export type TracingSettings = { otlpEndpoint: string | undefined; serviceName: string };

/** The stack's own tracer provider (the SDK's), as this file uses it. */
type Provider = { getTracer(name: string): Tracer; forceFlush(): Promise<void>; shutdown(): Promise<void> };

/** Options of one span. */
export type SpanOptions = { kind?: SpanKind; attributes?: Attributes; links?: Link[]; parent?: Context };

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** One stack's tracer, its active context and the life spans of its transfers. */
export class Tracing {
  private readonly store = new AsyncLocalStorage<Context>();
  private readonly propagator = new W3CTraceContextPropagator();
  readonly tracer: Tracer;
  /** The life span of each transfer this instance stored, by reference (D-267). */
  readonly transfers: TransferSpans;

  /** Wraps `provider` (the stack's own, never the global one). */
  constructor(private readonly provider: Provider) {
    this.tracer = provider.getTracer('svckit');
    this.transfers = new TransferSpans(this);
  }

  /** The context of the code running now (the request's, a span's), or the root context. */
  active(): Context {
    return this.store.getStore() ?? ROOT_CONTEXT;
  }

  /** Runs `fn` with `context` active. */
  with<T>(context: Context, fn: () => T): T {
    return this.store.run(context, fn);
  }

  /** Starts a span as a child of `options.parent`, or of the active context. The caller ends it. */
  start(name: string, options: SpanOptions = {}): Span {
    return this.tracer.startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
      options.parent ?? this.active(),
    );
  }

  /**
   * Runs `fn` in a span that ends with it; a throw marks the span as an error (its class name only: messages
   * may carry request content).
   */
  async span<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
    const span = this.start(name, options);
    try {
      return await this.with(trace.setSpan(options.parent ?? this.active(), span), () => fn(span));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'error' });
      throw error;
    } finally {
      span.end();
    }
  }

  /** The W3C trace context (`traceparent`, `tracestate`) of `span`, as headers. */
  headersOf(span: Span): Record<string, string> {
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return headers;
  }

  /** The context an incoming request's `traceparent` names, or the root context. */
  extract(headers: Record<string, string | string[] | undefined>): Context {
    return this.propagator.extract(ROOT_CONTEXT, headers, headerGetter);
  }

  /** Sends what is still buffered (tests). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /** Ends the transfers' open life spans, sends what is buffered and stops the exporter. */
  async shutdown(): Promise<void> {
    this.transfers.endAll();
    await this.provider.shutdown();
  }
}

/** D-265: the stack's tracing, or undefined when OTEL_EXPORTER_OTLP_ENDPOINT is not set (traces off). */
export async function startTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  if (!settings.otlpEndpoint) return undefined;
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all(
    [
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ],
  );
  const url = `${settings.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url }),
        scheduledDelayMillis: 1000,
        // Bounded: spans over the queue are dropped rather than held while the collector is away.
        maxQueueSize: 2048,
      }),
    ],
  });
  return new Tracing(provider);
}

export { SpanKind, SpanStatusCode };

/**
 * D-266: a database query group (one repository operation: a transaction, or the statements of one step) as a
 * span named `db <group>`; `fn` alone when traces are off. `root`: the group is background work (the confirmer,
 * the dispatcher) and starts its own trace, whatever request happened to wake it.
 */
export function dbGroup<T>(
  tracing: Tracing | undefined,
  group: string,
  fn: () => Promise<T>,
  options: Omit<SpanOptions, 'kind' | 'parent'> & { root?: boolean } = {},
): Promise<T> {
  if (!tracing) return fn();
  const { root, ...rest } = options;
  return tracing.span(
    `db ${group}`,
    {
      ...rest,
      kind: SpanKind.CLIENT,
      attributes: { 'db.operation.name': group, ...options.attributes },
      ...(root ? { parent: ROOT_CONTEXT } : {}),
    },
    fn,
  );
}
