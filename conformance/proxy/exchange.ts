/**
 * One proxied exchange as the proxy's judges see it, and what they find (D-249): the client's mistakes
 * (a request the contract refuses) apart from the upstream's violations (an answer that breaks the contract),
 * each violation with its check, a JSON pointer into the answer and a shortened value.
 */
import type { WireRequest, WireResponse } from '../engine/core/client.ts';
import type { NamedCheck } from '../engine/core/names.ts';
import type { EngineFailure, ResultSurface } from '../engine/core/types.ts';

/** An exchange the proxy forwarded: the request and the answer, each body a bounded copy (D-250). */
export interface ProxiedExchange {
  /** Sequence number of the exchange since the proxy started. */
  n: number;
  /** The request as the upstream got it (absolute upstream URL); `body` undefined when there was none. */
  request: WireRequest;
  /** The request body went past the bound: its copy was cut and it is not judged. */
  requestCut: boolean;
  /** The answer; status 0 when the upstream gave none. */
  response: WireResponse;
  /** The answer body went past the bound: it is forwarded, not judged. */
  responseCut: boolean;
}

/** A client's mistake: the request breaks the contract of the operation it names. */
export interface ClientFinding {
  operation: string;
  /** JSON pointer into the request: `/query/limit`, `/body/amount`, `/path`. */
  pointer: string;
  message: string;
}

/** A check's verdict on one answer, with where in the answer it looked. */
export interface ProxyVerdict {
  check: NamedCheck;
  ok: boolean;
  message?: string;
  /** JSON pointer into the answer: `/status`, `/headers/content-type`, `/body/balance`. */
  pointer: string;
  /** The value found there, shortened. */
  value?: string;
}

/** Everything judged on one exchange of one surface (a JSON-RPC batch gives one per call). */
export interface Judgement {
  surface: ResultSurface | 'evidence';
  operation: string;
  client: ClientFinding[];
  verdicts: ProxyVerdict[];
  /** The case the exchange stands for, kept with a failure (case files, `svckit replay`). */
  case: EngineFailure['case'];
  /** Why the answer was not judged (a body over the bound), when it was not. */
  notJudged?: string;
}

/** Longest value a violation line carries (characters). */
const VALUE_CHARS = 80;

/** A value as a violation line shows it: JSON, cut at {@link VALUE_CHARS} characters. */
export function shortValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

/** RFC 6901 escaping of one pointer segment. */
export const pointerSegment = (segment: string | number): string =>
  String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
