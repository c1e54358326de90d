/**
 * D-266: hands the stack's tracing to the parts that make spans (the node client, the transfer engine and
 * confirmer, the webhook dispatcher). Nothing is attached when traces are off.
 */
import type { Upstream } from '../../node/upstream.ts';
import type { TransferConfirmer } from '../../ledger/transfers/confirmer.ts';
import type { TransferEngine } from '../../ledger/transfers/engine.ts';
import type { WebhookDispatcher } from '../../webhooks/dispatcher.ts';
import type { Tracing } from './tracing.ts';

/** The parts of a stack that make spans. */
export type TracedParts = {
  upstream: Upstream;
  engine: TransferEngine;
  confirmer: TransferConfirmer;
  dispatcher: WebhookDispatcher;
};

/** Gives `tracing` to every part of `parts`; a no-op when it is undefined (traces off). */
export function attachTracing(tracing: Tracing | undefined, parts: TracedParts): void {
  if (!tracing) return;
  for (const part of [parts.upstream, parts.engine, parts.confirmer, parts.dispatcher]) part.tracing = tracing;
}
