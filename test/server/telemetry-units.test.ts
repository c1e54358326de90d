// D-265..D-269 in isolation: traces off without an endpoint, the bound of the transfers' life spans, the
// active span carried across awaits, and the request id's acceptance rule.
import type { IncomingMessage } from 'node:http';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { requestIdOf } from '../../src/server/telemetry/requests.ts';
import { startTracing, Tracing } from '../../src/server/telemetry/tracing.ts';
import { TRANSFER_SPANS_KEPT } from '../../src/server/telemetry/transfer-spans.ts';

function inMemory() {
  const exporter = new InMemorySpanExporter();
  const tracing = new Tracing(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  return { exporter, tracing };
}

describe('tracing', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(await startTracing({ otlpEndpoint: undefined, serviceName: 'svckit' })).toBeUndefined();
    const on = await startTracing({ otlpEndpoint: 'http://127.0.0.1:9', serviceName: 'svckit' });
    expect(on).toBeInstanceOf(Tracing);
    await on?.shutdown();
  });

  it('makes the span of `span()` the parent of the spans started inside it, across awaits', async () => {
    const { exporter, tracing } = inMemory();
    await tracing.span('outer', {}, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await tracing.span('inner', {}, async () => undefined);
    });
    await tracing.span('alone', {}, async () => undefined);
    await tracing.flush();
    const [inner, outer, alone] = exporter.getFinishedSpans();
    expect([inner?.name, outer?.name, alone?.name]).toEqual(['inner', 'outer', 'alone']);
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
    expect(alone?.parentSpanContext).toBeUndefined();
  });

  it("ends a transfer's life span with its outcome, and the oldest open one as untracked past the bound", async () => {
    const { exporter, tracing } = inMemory();
    for (let i = 0; i <= TRANSFER_SPANS_KEPT; i++)
      tracing.transfers.stored(`ref-${i}`, { kind: 'transfer', txHash: '0x' });
    tracing.transfers.settled('ref-1', 'confirmed', 7);
    await tracing.flush();
    const ended = exporter.getFinishedSpans();
    expect(
      ended.map((s) => [s.attributes['svckit.transfer.reference'], s.attributes['svckit.transfer.outcome']]),
    ).toEqual([
      ['ref-0', 'untracked'],
      ['ref-1', 'confirmed'],
    ]);
    expect(ended[1]?.attributes['svckit.block.number']).toBe(7);
    expect(tracing.transfers.contextOf('ref-0')).toBeUndefined();
    expect(tracing.transfers.contextOf('ref-1')?.spanId).toBe(ended[1]?.spanContext().spanId);
  });
});

describe('request ids (D-269)', () => {
  const of = (value?: string) =>
    requestIdOf({ headers: value === undefined ? {} : { 'x-request-id': value } } as IncomingMessage);
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("keeps a caller's id of 1 to 128 safe characters", () => {
    expect(of('lb-7f3a.01:x_y')).toBe('lb-7f3a.01:x_y');
    expect(of('a'.repeat(128))).toBe('a'.repeat(128));
  });

  it('replaces an absent, empty, long or unsafe one with a fresh UUID', () => {
    for (const value of [undefined, '', 'a'.repeat(129), 'two words', 'line\nbreak', '{"json":1}', 'é'])
      expect(of(value), String(value)).toMatch(UUID);
    expect(of()).not.toBe(of());
  });
});
