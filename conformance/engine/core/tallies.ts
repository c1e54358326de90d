/** The tallies every contract format's surface keeps: opened per selected check, and the failures they keep. */
import type { CaseVerdict } from './checks.ts';
import type { EngineClient, WireRequest, WireResponse } from './client.ts';
import { NAMED_CHECKS } from './names.ts';
import { selected } from './registry.ts';
import type { CheckTally, EngineFailure, EngineOptions, ResultSurface } from './types.ts';

/** Opens an empty tally on `surface` for each generated check the run selected (D-232). */
export function openTallies(
  tallies: Map<string, CheckTally>,
  surface: ResultSurface,
  options: Pick<EngineOptions, 'checks'>,
): void {
  for (const check of NAMED_CHECKS.filter((c) => selected(options, c)))
    tallies.set(`${surface}:${check}`, {
      surface,
      check,
      passed: 0,
      failed: 0,
      skipped: 0,
      skipReasons: [],
      failures: [],
    });
}

/** A kept failure: the check, its message, the (shrunk) case, and the exchange (the answer's body cut at 2,000). */
export function engineFailure(
  check: CaseVerdict['check'],
  message: string,
  c: EngineFailure['case'],
  request: WireRequest,
  response: WireResponse,
  shrunk: boolean,
): EngineFailure {
  return {
    check,
    message,
    case: c,
    request,
    response: { status: response.status, headers: response.headers, body: response.text.slice(0, 2000) },
    shrunk,
  };
}

/** Sends a request; a cut connection or a time-out is the server failing it: an answer of status 0. */
export async function sendOrNone(client: EngineClient, request: WireRequest): Promise<WireResponse> {
  try {
    return await client.send(request);
  } catch (error) {
    return { status: 0, headers: {}, text: `no response: ${(error as Error).message}`, json: undefined };
  }
}
