/**
 * D-266, D-268: a webhook attempt is a client span in the trace of the transfer its payment event is about, and
 * the receiver gets that span's W3C `traceparent` (and `tracestate`) beside the X-SVC headers. The trace context
 * is outside the signature (D-268).
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import type { AttemptResult } from '../../webhooks/transport.ts';
import { TRANSFER_REFERENCE } from './transfer-spans.ts';
import { SpanKind, SpanStatusCode, type Tracing } from './tracing.ts';

/** What the attempt span needs of a claimed delivery job. */
export type TracedJob = { id: string; event: string; attempts: number; endpointId: string; body: string };

/**
 * The transfer reference of the event's payment: its settling transfer, or for `payment.returned` its return.
 * One primary-key read, made only with traces on.
 */
async function transferOf(db: Database, job: TracedJob): Promise<string | undefined> {
  let uetr: unknown;
  try {
    uetr = (JSON.parse(job.body) as { uetr?: unknown }).uetr;
  } catch {
    return undefined;
  }
  if (typeof uetr !== 'string') return undefined;
  const result = await db.execute(
    sql`select transfer_tx_ref as "transfer", return_tx_ref as "returned" from payments where uetr = ${uetr}`,
  );
  const [row] = (result as unknown as { rows: { transfer: string | null; returned: string | null }[] }).rows;
  return (job.event === 'payment.returned' ? row?.returned : row?.transfer) ?? undefined;
}

/** Sends one attempt in its span, with the span's trace context added to `headers`. */
export async function tracedAttempt(
  tracing: Tracing,
  db: Database,
  job: TracedJob,
  headers: Record<string, string>,
  send: (headers: Record<string, string>) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const reference = await transferOf(db, job).catch(() => undefined);
  const life = reference ? tracing.transfers.contextOf(reference) : undefined;
  return tracing.span(
    'webhook POST',
    {
      kind: SpanKind.CLIENT,
      parent: life ? trace.setSpanContext(ROOT_CONTEXT, life) : ROOT_CONTEXT,
      attributes: {
        'http.request.method': 'POST',
        'svckit.webhook.delivery_id': job.id,
        'svckit.webhook.event': job.event,
        'svckit.webhook.endpoint_id': job.endpointId,
        'svckit.webhook.attempt': job.attempts + 1,
        ...(reference ? { [TRANSFER_REFERENCE]: reference } : {}),
      },
    },
    async (span) => {
      const result = await send({ ...headers, ...tracing.headersOf(span) });
      if (result.responseStatus !== null) span.setAttribute('http.response.status_code', result.responseStatus);
      if (!result.success) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'not 2xx' });
      return result;
    },
  );
}
