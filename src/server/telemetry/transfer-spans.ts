/**
 * D-267: each transfer's life, from its stored record to its confirmation (or failure), is one span named
 * `transfer`, carrying the transfer's reference. It starts in the request that stores the transfer (its child,
 * so the request, the node calls and the life share one trace) and ends when the confirmer settles it, usually
 * after that request has answered. The webhook attempts of the transfer's payment events join the same trace
 * through the reference. Bounded: the newest {@link TRANSFER_SPANS_KEPT} references are remembered; an older
 * span still open ends as `untracked`.
 */
import { type Span, type SpanContext, SpanStatusCode } from '@opentelemetry/api';
import type { Tracing } from './tracing.ts';

/** How many transfers' spans one instance remembers (their webhook attempts' parent). */
export const TRANSFER_SPANS_KEPT = 10_000;

/** The reference attribute carried by the transfer's spans and the webhook attempts of its events. */
export const TRANSFER_REFERENCE = 'svckit.transfer.reference';

type Entry = { span: Span; open: boolean };

/** The life spans of the transfers this instance stored, by reference. */
export class TransferSpans {
  private readonly entries = new Map<string, Entry>();

  /** Spans of `tracing`. */
  constructor(private readonly tracing: Tracing) {}

  /** A stored transfer: its life span starts as a child of the active context (the request that stores it). */
  stored(reference: string, attributes: { kind: string; txHash: string }): void {
    const span = this.tracing.start('transfer', {
      attributes: {
        [TRANSFER_REFERENCE]: reference,
        'svckit.transfer.kind': attributes.kind,
        'svckit.transfer.tx_hash': attributes.txHash,
      },
    });
    this.entries.set(reference, { span, open: true });
    if (this.entries.size > TRANSFER_SPANS_KEPT) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      if (entry.open) this.close(entry, 'untracked');
    }
  }

  /** The transfer left pending: its life span ends with the outcome (`confirmed` or `failed`). */
  settled(reference: string, status: string, blockNumber?: number | null): void {
    const entry = this.entries.get(reference);
    if (!entry?.open) return;
    if (blockNumber !== undefined && blockNumber !== null) entry.span.setAttribute('svckit.block.number', blockNumber);
    this.close(entry, status);
  }

  /** The span context of a transfer this instance stored (the parent of its events' webhook attempts). */
  contextOf(reference: string): SpanContext | undefined {
    return this.entries.get(reference)?.span.spanContext();
  }

  /** Ends every open life span (the stack stops): their outcome is not known here. */
  endAll(): void {
    for (const entry of this.entries.values()) if (entry.open) this.close(entry, 'untracked');
  }

  private close(entry: Entry, outcome: string): void {
    entry.open = false;
    entry.span.setAttribute('svckit.transfer.outcome', outcome);
    if (outcome === 'failed') entry.span.setStatus({ code: SpanStatusCode.ERROR, message: 'transfer failed' });
    entry.span.end();
  }
}
