// Shared text helpers for the reports: JSON that survives bigint (house rule 5: money is bigint
// wei inside) and credential redaction, so a shared report never leaks an svc_ key or admin token.
import type { CheckRequest } from '../catalogue.ts';
import type { CheckResult } from '../runner.ts';

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** JSON.stringify that writes bigint as a decimal string instead of throwing. */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), indent) ?? 'undefined';
}

/** A copy of the request with credential header values replaced by their scheme and "[redacted]". */
export function redactRequest(request: CheckRequest): CheckRequest {
  if (!request.headers) return { ...request };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase())) {
      headers[name] = value;
      continue;
    }
    // Keep the scheme (Bearer, SVC-MLDSA) so the reader sees which method was used.
    const scheme = /^([A-Za-z][A-Za-z0-9-]*)\s+\S/.exec(value)?.[1];
    headers[name] = scheme ? `${scheme} [redacted]` : '[redacted]';
  }
  return { ...request, headers };
}

/** Names of JSON fields whose values are secrets: tokens, signing secrets, private keys, mnemonics. */
export const SECRET_FIELD = /token|secret|password|private.?key|mnemonic|seed.?phrase/i;

/**
 * A body text with the values of its secret fields replaced by "[redacted]" (an issued API key's token, a
 * rotated webhook secret): reports and HAR files are shared, secrets never reach them (D-232).
 */
export function redactBody(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.replace(/\bsvc_[A-Za-z0-9_-]{8,}/g, 'svc_[redacted]');
  }
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        SECRET_FIELD.test(k) && typeof v === 'string' ? '[redacted]' : walk(v),
      ]),
    );
  };
  return JSON.stringify(walk(parsed));
}

/** A result with its request redacted, ready to serialise. */
export function redactResult(result: CheckResult): CheckResult {
  return result.request ? { ...result, request: redactRequest(result.request) } : result;
}

/** Detail lines for a failed or skipped result: reason, request and what differed. */
export function detailLines(result: CheckResult): string[] {
  const lines: string[] = [];
  if (result.reason !== undefined) lines.push(`reason: ${result.reason}`);
  if (result.status !== 'failed') return lines;
  if (result.request) {
    const req = redactRequest(result.request);
    lines.push(`request: ${req.method} ${req.url}`);
    for (const [name, value] of Object.entries(req.headers ?? {})) lines.push(`  ${name}: ${value}`);
    if (req.body !== undefined) lines.push(`  body: ${typeof req.body === 'string' ? req.body : toJson(req.body)}`);
  }
  if ('expected' in result) lines.push(`expected: ${toJson(result.expected)}`);
  if ('actual' in result) lines.push(`actual: ${toJson(result.actual)}`);
  return lines;
}
