/**
 * What every contract format's judges share: the verdict of a generated check on one case, and the checks
 * judged on the origins and answers of every surface (`security_headers`, `tls_hybrid_group`).
 */
import type { EngineCase } from './cases.ts';
import type { WireResponse } from './client.ts';
import type { NamedCheck } from './names.ts';
import type { CheckTally } from './types.ts';

/** A check's verdict on one case. */
export type CaseVerdict = { check: NamedCheck; ok: boolean; message?: string };

/**
 * `security_headers` on one answer of an https origin (D-207): `Strict-Transport-Security` with a max-age, and
 * `X-Content-Type-Options: nosniff`; undefined when both are there.
 */
export function securityHeadersProblem(res: WireResponse): string | undefined {
  const problems: string[] = [];
  const hsts = res.headers['strict-transport-security'];
  if (hsts === undefined) problems.push('no Strict-Transport-Security header');
  else if (!/(^|;)\s*max-age\s*=\s*"?\d+"?\s*(;|$)/i.test(hsts))
    problems.push(`Strict-Transport-Security ${JSON.stringify(hsts)} has no max-age`);
  const nosniff = res.headers['x-content-type-options'];
  if (nosniff?.trim().toLowerCase() !== 'nosniff')
    problems.push(
      nosniff === undefined
        ? 'no X-Content-Type-Options header'
        : `X-Content-Type-Options ${JSON.stringify(nosniff)}, expected nosniff`,
    );
  return problems.length ? `HTTP ${res.status}: ${problems.join('; ')}` : undefined;
}

/**
 * `security_headers` on an answer (D-207): judged on https origins; on a plain-http loopback origin (D-233) it
 * is skipped with the reason, and a case without an answer (status 0) is judged by `not_a_server_error` alone.
 */
export function securityHeaders(
  ctx:
    | { tallies: Map<string, CheckTally>; contract: { surface: string } }
    | { tallies: Map<string, CheckTally>; surface: string },
  origin: URL,
  response: WireResponse,
): CaseVerdict[] {
  const surface = 'contract' in ctx ? ctx.contract.surface : ctx.surface;
  const tally = ctx.tallies.get(`${surface}:security_headers`);
  if (!tally || response.status === 0) return [];
  if (origin.protocol !== 'https:') {
    const reason = `${origin.origin} is plain http (D-233): HSTS applies to https origins only`;
    tally.skipped += 1;
    if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
    return [];
  }
  const problem = securityHeadersProblem(response);
  return [
    problem ? { check: 'security_headers', ok: false, message: problem } : { check: 'security_headers', ok: true },
  ];
}

/**
 * `tls_hybrid_group`: each origin the run talked to negotiates TLS 1.3 with X25519MLKEM768 when offered it
 * first among classical groups (spec: "hybrid post-quantum TLS (X25519MLKEM768)"), with the catalogue's own
 * handshake (conformance/checks/transport). A plain-http loopback node (D-192) has no TLS: skipped, never passed.
 */
export async function tlsHybridGroup(
  origins: readonly { url: URL; surface: CheckTally['surface'] }[],
  caCert: string | undefined,
  tallies: Map<string, CheckTally>,
): Promise<void> {
  const { handshake, HYBRID_GROUP } = await import('../../checks/transport/index.ts');
  for (const { url, surface } of origins) {
    const tally = tallies.get(`${surface}:tls_hybrid_group`);
    if (!tally) continue;
    if (url.protocol !== 'https:') {
      const reason = `${url.origin} is plain http (a loopback node, D-192): no TLS group to check`;
      tally.skipped += 1;
      if (!tally.skipReasons.includes(reason)) tally.skipReasons.push(reason);
      continue;
    }
    const h = await handshake({ kind: 'remote', capabilities: new Set(), ...(caCert ? { caCert } : {}) }, url, {
      groups: `${HYBRID_GROUP}:X25519:P-256`,
    });
    const problem = !h.ok
      ? `${url.origin}: handshake failed: ${h.error}`
      : h.group !== HYBRID_GROUP || h.protocol !== 'TLSv1.3'
        ? `${url.origin}: negotiated ${h.protocol} with group ${h.group}, expected TLSv1.3 with ${HYBRID_GROUP}`
        : undefined;
    if (!problem) {
      tally.passed += 1;
      continue;
    }
    tally.failed += 1;
    tally.failures.push({
      check: 'tls_hybrid_group',
      message: problem,
      case: {
        surface: surface as EngineCase['surface'], // the chain surface's cases share EngineCase's fields (RpcCase)
        operation: url.origin,
        phase: 'coverage',
        kind: 'positive',
        reason: `a TLS handshake offering ${HYBRID_GROUP}, X25519, P-256`,
        input: { params: {} },
        method: 'CONNECT',
        authenticated: false,
      },
      request: { method: 'CONNECT', url: url.origin, headers: {} },
      response: { status: 0, headers: {}, body: problem },
      shrunk: false,
    });
  }
}
