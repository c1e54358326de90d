/**
 * The event stream of a run (D-232): run started, every case sent with its answer, every answer a generated
 * check judged, every check finished, run finished. The NDJSON report is this stream, written as the run goes;
 * the HAR file is built from its `case_sent` events. Credentials are redacted before an event leaves the run.
 */
import type { Status } from './report/model.ts';

/** A request or answer on the wire, as events carry it. */
export interface WireExchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string; tlsGroup?: string };
  /** Why no answer came (a cut connection, a time-out). */
  error?: string;
}

/** Every event of a run, each with its time (ISO 8601 UTC). */
export type RunEvent =
  | {
      type: 'run_started';
      at: string;
      /** The ids of the checks in the run, in run order. */
      checks: string[];
      phases: string[];
      seed?: number;
    }
  | ({
      type: 'case_sent';
      at: string;
      /** Sequence number of the exchange in the run. */
      n: number;
      /** The check that sent it (its id), when known. */
      check?: string;
      /** Who sent it: a hand-written check, the engine, or a client whose traffic `svckit proxy` forwarded (D-249). */
      source: 'hand-written' | 'generated' | 'proxied';
      durationMs: number;
      /** A rate-limit answer the run waited out and sent again; never a verdict. */
      rateLimited: boolean;
    } & WireExchange)
  | {
      type: 'answer_judged';
      at: string;
      /** The surface and operation (or method) of the generated case. */
      surface: string;
      operation: string;
      status: number;
      verdicts: { check: string; ok: boolean; message?: string }[];
    }
  | {
      type: 'check_finished';
      at: string;
      check: string;
      status: Status;
      reason?: string;
      durationMs: number;
    }
  | {
      type: 'run_finished';
      at: string;
      summary: { passed: number; failed: number; skipped: number };
      requests: number;
      durationMs: number;
      interrupted: boolean;
    };

/** Where a run sends its events; each writer of the stream is one sink. */
export type EventSink = (event: RunEvent) => void;

/** A sink that forwards to each of `sinks`. */
export function fanOut(sinks: readonly EventSink[]): EventSink {
  return (event) => {
    for (const sink of sinks) sink(event);
  };
}

/** The current time as events state it. */
export const eventTime = (ms: number): string => new Date(ms).toISOString();
