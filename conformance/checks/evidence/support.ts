// Shared part of the evidence document checks (surface F): one GET of {site_url}/.well-known/pqc-evidence.json
// per target, waiting out the 503 and Retry-After a site answers before its document is built (D-153), within
// a bound (D-164).
import type { HttpResult } from '../../http.ts';
import { request } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { Unavailable } from '../define.ts';

/** The path of the evidence document under {site_url} (spec "F. Evidence document"). */
export const EVIDENCE_DOCUMENT_PATH = '.well-known/pqc-evidence.json';

/** How long the checks wait for a site that answers 503 with Retry-After (D-164). */
export const EVIDENCE_WAIT_MS = 180_000;

/** The answer the checks judge, and how long the site made them wait for it. */
export type EvidenceFetch = { res: HttpResult; waitedMs: number };

const fetches = new WeakMap<Target, Promise<EvidenceFetch>>();

/**
 * The target's evidence document answer, fetched once and shared by the checks. While the site answers 503
 * with Retry-After (D-153: not built yet) it is asked again after that many seconds, until `waitMs` has
 * passed; the in-process reference is first asked to build its document, as `svckit serve` does at start.
 */
export function evidenceDocument(target: Target, waitMs = EVIDENCE_WAIT_MS): Promise<EvidenceFetch> {
  let fetched = fetches.get(target);
  if (!fetched) {
    fetched = fetchDocument(target, waitMs);
    fetched.catch(() => fetches.delete(target));
    fetches.set(target, fetched);
  }
  return fetched;
}

async function fetchDocument(target: Target, waitMs: number): Promise<EvidenceFetch> {
  if (!target.site) throw new Unavailable('the target has no site origin ({site_url})');
  const url = new URL(EVIDENCE_DOCUMENT_PATH, target.site);
  const started = Date.now();
  for (;;) {
    const res = await request(target, url);
    const waitedMs = Date.now() - started;
    const retryAfter = Number(res.headers['retry-after']);
    if (res.status !== 503 || !(retryAfter >= 0)) return { res, waitedMs };
    target.reference?.buildEvidence?.();
    const pause = Math.min(Math.max(1, retryAfter) * 1000, waitMs - waitedMs);
    if (pause <= 0) return { res, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Why an answer is not a served document (undefined when it is one: 200 with a JSON body). */
export function notServed({ res, waitedMs }: EvidenceFetch): string | undefined {
  if (res.status === 503)
    return `GET /${EVIDENCE_DOCUMENT_PATH} still answered 503 after ${Math.round(waitedMs / 1000)} s (D-164): ${res.text.slice(0, 200)}`;
  if (res.status !== 200)
    return `GET /${EVIDENCE_DOCUMENT_PATH}: expected HTTP 200, got ${res.status} ${res.text.slice(0, 200)}`;
  if (res.json === undefined) return `GET /${EVIDENCE_DOCUMENT_PATH}: the body is not JSON: ${res.text.slice(0, 200)}`;
  return undefined;
}
