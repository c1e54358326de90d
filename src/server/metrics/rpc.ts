/**
 * JSON-RPC metrics (D-278): each client request's answer counts under its method, when the dispatcher knows the
 * method (else `other`), and its error code ("ok" for a result). Codes come from a fixed set: the JSON-RPC 2.0
 * codes, the server range -32000..-32099 and 3 (execution reverted); any other a node answers is `other`.
 */
import type { RpcResponse } from '../../node/upstream.ts';
import { OTHER, type StackMetrics } from './registry.ts';

/** D-278: whether `code` keeps its number as a label value. */
export function knownCode(code: number): boolean {
  return code === 3 || code === -32700 || (code <= -32600 && code >= -32603) || (code <= -32000 && code >= -32099);
}

type Inc = { inc(): void };

/**
 * The observer the dispatcher calls for each client request (`request` as the client sent it). Cheap: labelled
 * children are kept in nested maps, so a request costs two map lookups and prom-client's inc.
 */
export function rpcObserver(
  metrics: StackMetrics,
  knows: (method: string) => boolean,
): (request: unknown, answer: RpcResponse) => void {
  const children = new Map<string, Map<number | undefined, Inc>>();
  return (request, answer) => {
    const raw = (request as { method?: unknown } | null)?.method;
    const method = typeof raw === 'string' && knows(raw) ? raw : OTHER;
    const code = answer.error?.code;
    let byCode = children.get(method);
    if (!byCode) {
      byCode = new Map();
      children.set(method, byCode);
    }
    let child = byCode.get(code);
    if (!child) {
      const label = code === undefined ? 'ok' : typeof code === 'number' && knownCode(code) ? String(code) : OTHER;
      child = metrics.rpcCalls.labels(method, label);
      // Unknown codes share one child per method, but are not kept by code: the map stays bounded.
      if (label !== OTHER) byCode.set(code, child);
    }
    child.inc();
  };
}
