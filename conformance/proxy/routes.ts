/**
 * Which contract operation a proxied request is (D-249): the base origin serves the institutional
 * (`/wallet/api/v1`), explorer (`/api`) and admin (`/admin/v1`) contracts and the chain's `/rpc`; the wallet
 * origin serves the wallet contract at its root; the site origin serves the evidence document. A request is
 * matched by method and route template under its surface's base path, every path parameter one segment.
 */
import { type Contract, contractOf, type EngineSurface, type Operation } from '../engine/openapi/contract.ts';

/** The origins the proxy stands in front of (`--upstream`, `--wallet-upstream`, `--site-upstream`). */
export type ProxyOrigin = 'base' | 'wallet' | 'site';

/** What a request is: an operation, a path of a surface with no such operation, the chain endpoint, or none. */
export type Route =
  | { kind: 'operation'; contract: Contract; op: Operation; path: Record<string, string> }
  | { kind: 'unmatched'; contract: Contract }
  | { kind: 'rpc' }
  | { kind: 'none' };

const SURFACES_OF: Record<ProxyOrigin, readonly EngineSurface[]> = {
  base: ['institutional', 'explorer', 'admin'],
  wallet: ['wallet'],
  site: [],
};

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Compiled = { contract: Contract; prefix: string; ops: { op: Operation; re: RegExp; names: string[] }[] };

/** The route table of one origin, built once: the surfaces it serves and a matcher of requests. */
export function routeTable(
  origin: ProxyOrigin,
  specsDir: string,
): { surfaces: { surface: EngineSurface; contract: Contract }[]; match: (method: string, pathname: string) => Route } {
  const compiled: Compiled[] = SURFACES_OF[origin].map((surface) => {
    const contract = contractOf(specsDir, surface);
    // The wallet contract is served at the root of {wallet_api_url} (its servers' path is the origin's own).
    const prefix = surface === 'wallet' ? '' : contract.basePath;
    return {
      contract,
      prefix,
      ops: contract.operations.map((op) => {
        const names = [...op.route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
        const source = op.route
          .split(/\{[^}]+\}/)
          .map(literal)
          .join('([^/]+)');
        return { op, names, re: new RegExp(`^${literal(prefix)}${source}$`) };
      }),
    };
  });
  const match = (method: string, pathname: string): Route => {
    if (origin === 'base' && pathname === '/rpc') return { kind: 'rpc' };
    for (const table of compiled) {
      if (table.prefix !== '' && pathname !== table.prefix && !pathname.startsWith(`${table.prefix}/`)) continue;
      let pathKnown = false;
      for (const { op, re, names } of table.ops) {
        const m = re.exec(pathname);
        if (!m) continue;
        pathKnown = true;
        if (op.method !== method) continue;
        const path: Record<string, string> = {};
        names.forEach((name, i) => {
          path[name] = safeDecode(m[i + 1] ?? '');
        });
        return { kind: 'operation', contract: table.contract, op, path };
      }
      if (pathKnown || table.prefix !== '') return { kind: 'unmatched', contract: table.contract };
    }
    return { kind: 'none' };
  };
  return { surfaces: compiled.map((t) => ({ surface: t.contract.surface, contract: t.contract })), match };
}

/** A path segment decoded, or as it came when it is not valid percent-encoding. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
