/**
 * The scope of one conformance run, carried through everything it awaits: its pacer (D-180, D-234) and who
 * watches its exchanges. Two runs in one process each have their own, so they share no gate and no count.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Attempt, Pacer } from './pacing.ts';

/** One attempt of a request, as a run's exchange listener sees it. */
export type Exchange = {
  source: 'hand-written' | 'generated';
  /** The check that sent it, when known. */
  check?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** Absent when no answer came (`error` says why). */
  response?: { status: number; headers: Record<string, string>; body: string; tlsGroup?: string };
  error?: string;
  /** When it was sent, ms since the epoch. */
  startedAt: number;
  durationMs: number;
  /** This answer was a rate limit, waited out, and the request sent again (D-234). */
  rateLimited: boolean;
};

/** What a run shares with every request made inside it. */
export interface RunScope {
  pacer: Pacer;
  /** Told every attempt of every request, hand-written and generated. */
  onExchange?(exchange: Exchange): void;
}

const scopes = new AsyncLocalStorage<RunScope>();

/** Runs `fn` as (part of) the run of `scope`. */
export function withRunScope<T>(scope: RunScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}

/** The scope of the run the caller is part of, if any. */
export function currentRunScope(): RunScope | undefined {
  return scopes.getStore();
}

/**
 * Runs `fn` in the caller's run scope when its pacer resends, else in a scope with a run's pacer (D-180: a
 * rate-limit answer is waited out and sent again) keeping the caller's exchange listener: a catalogue run outside
 * `svckit conformance` waits out a 429 as the command does.
 */
export function withinRun<T>(fn: () => Promise<T>): Promise<T> {
  const scope = currentRunScope();
  if (scope && scope.pacer.maxRetries > 0) return fn();
  return withRunScope({ ...scope, pacer: new Pacer() }, fn);
}

/** The exchange of one attempt of `request`, sent by `check` (when known), for a run's exchange listener. */
export function exchangeOf(
  source: Exchange['source'],
  check: string | undefined,
  request: { method: string; url: string; headers: Record<string, string>; body?: string | undefined },
  attempt: Attempt<{ status: number; headers: Record<string, string>; text: string; tlsGroup?: string | undefined }>,
): Exchange {
  const { response, error, startedAt, durationMs, rateLimited } = attempt;
  return {
    source,
    ...(check !== undefined ? { check } : {}),
    request: {
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: response.headers,
            body: response.text,
            ...(response.tlsGroup ? { tlsGroup: response.tlsGroup } : {}),
          },
        }
      : { error: error instanceof Error ? error.message : String(error) }),
    startedAt,
    durationMs,
    rateLimited,
  };
}
