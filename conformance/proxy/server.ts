/**
 * `svckit proxy`'s listeners (D-249): one per upstream origin, with the reference stack's hybrid post-quantum TLS
 * (or plain http on loopback, D-233). Each exchange is forwarded unchanged (forward.ts), judged against the
 * contracts (judge-openapi.ts, judge-rpc.ts), its violations written as JSON lines and counted in
 * `X-Svckit-Violations`; with `strict` an answer with a violation is replaced by a 502 naming them.
 */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import tls from 'node:tls';
import { httpsOptions } from '../../src/server/tls/tls-options.ts';
import { securityHeadersProblem } from '../engine/core/checks.ts';
import type { WireResponse } from '../engine/core/client.ts';
import { loadRpcContract, type RpcContract } from '../engine/openrpc/contract.ts';
import type { Judgement, ProxiedExchange } from './exchange.ts';
import { BodyCopy, endToEnd, forward, HoldBudget, type Upstream, upstreamAgent, upstreamUrl } from './forward.ts';
import { judgeOpenApi } from './judge-openapi.ts';
import { judgeRpc } from './judge-rpc.ts';
import type { ProxyLedger } from './ledger.ts';
import { type ProxyOrigin, routeTable } from './routes.ts';

/** The response header that counts an exchange's violations (D-249). */
export const VIOLATIONS_HEADER = 'x-svckit-violations';

/** How the proxy runs. */
export interface ProxyOptions {
  /** The upstream of each origin; `base` is required. */
  upstreams: Partial<Record<ProxyOrigin, URL>> & { base: URL };
  /** Listening port per origin (0: ephemeral). */
  ports: Partial<Record<ProxyOrigin, number>>;
  host: string;
  /** PEM certificate and key of the listeners; absent: plain http (loopback only, checked by the caller). */
  tls?: { cert: string; key: string };
  /** PEM of an extra CA the upstreams' certificates chain to. */
  caCert?: string;
  strict: boolean;
  violationsHeader: boolean;
  /** Bytes of one body the judges see, and of every held copy together (D-250). */
  bodyBound: number;
  holdBudget: number;
  timeoutMs: number;
  specsDir: string;
  ledger: ProxyLedger;
  /** Told every exchange after it is judged (the HAR recorder). */
  onExchange?: (exchange: ProxiedExchange, durationMs: number) => void;
}

/** A running proxy. */
export interface RunningProxy {
  /** The URL clients use for each origin. */
  urls: Partial<Record<ProxyOrigin, string>>;
  close(): Promise<void>;
}

const ORIGINS: readonly ProxyOrigin[] = ['base', 'wallet', 'site'];

/** Starts one listener per upstream origin. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const budget = new HoldBudget(options.bodyBound, options.holdBudget);
  const rpc = loadRpcContract(options.specsDir);
  const servers: { origin: ProxyOrigin; server: http.Server }[] = [];
  const agents: http.Agent[] = [];
  let n = 0;
  for (const origin of ORIGINS) {
    const url = options.upstreams[origin];
    if (!url) continue;
    const agent = upstreamAgent(url, options.caCert, 64);
    agents.push(agent);
    const upstream: Upstream = { url, agent, timeoutMs: options.timeoutMs };
    const routes = routeTable(origin, options.specsDir);
    for (const table of routes.surfaces) options.ledger.open(table.surface, table.contract);
    if (origin === 'base') options.ledger.open('chain', rpc);
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      n += 1;
      handle({ origin, upstream, routes, rpc, budget, options }, n, req, res).catch((error: Error) => {
        // Only a bug lands here: the exchange is ended, the proxy keeps serving.
        console.error(JSON.stringify({ side: 'proxy', n, error: error.message }));
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end();
      });
    };
    const server = options.tls
      ? https.createServer(httpsOptions(options.tls, false), handler)
      : http.createServer(handler);
    server.on('clientError', (_error, socket) => socket.destroy());
    server.on('upgrade', (req, socket, head) => tunnel(upstream, options.caCert, req, socket as net.Socket, head));
    server.listen(options.ports[origin] ?? 0, options.host);
    await once(server, 'listening');
    // A listener's own failure after it started is told, never thrown.
    server.on('error', (error) => console.error(JSON.stringify({ side: 'proxy', origin, error: error.message })));
    servers.push({ origin, server });
  }
  const scheme = options.tls ? 'https' : 'http';
  const host = net.isIPv6(options.host) ? `[${options.host}]` : options.host;
  const urls: RunningProxy['urls'] = {};
  for (const { origin, server } of servers)
    urls[origin] = `${scheme}://${host}:${(server.address() as AddressInfo).port}`;
  return {
    urls,
    close: async () => {
      await Promise.all(
        servers.map(({ server }) => {
          server.closeAllConnections();
          return new Promise<void>((resolve) => server.close(() => resolve()));
        }),
      );
      for (const agent of agents) agent.destroy();
    },
  };
}

type Context = {
  origin: ProxyOrigin;
  upstream: Upstream;
  routes: ReturnType<typeof routeTable>;
  rpc: RpcContract;
  budget: HoldBudget;
  options: ProxyOptions;
};

/** One exchange: forward, judge, answer. */
async function handle(ctx: Context, n: number, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = performance.now();
  const copy = new BodyCopy(ctx.budget);
  // The path as the client sent it names the operation (the upstream's own base path aside).
  const pathname = new URL(req.url ?? '/', 'http://client.invalid').pathname;
  const request = {
    method: req.method ?? 'GET',
    url: upstreamUrl(ctx.upstream.url, req.url ?? '/').href,
    headers: flat(endToEnd(req.headers)),
  };
  const exchange = (response: WireResponse, responseCut: boolean): ProxiedExchange => {
    const body = copy.bytes().toString('utf8');
    return {
      n,
      request: { ...request, ...(copy.size > 0 || copy.cut ? { body } : {}) },
      requestCut: copy.cut,
      response,
      responseCut,
    };
  };
  let answer: Awaited<ReturnType<typeof forward>>;
  try {
    answer = await forward(ctx.upstream, req, copy, ctx.budget);
  } catch (error) {
    if (!req.complete) {
      // The client went away before its request ended: nothing the upstream did is to judge.
      copy.release();
      return;
    }
    // No answer from the upstream: the client gets a 502, and the exchange is judged as status 0.
    const message = `upstream gave no answer: ${(error as Error).message}`;
    const ex = exchange({ status: 0, headers: {}, text: message, json: undefined }, false);
    const violations = ctx.options.ledger.record(ex, judge(ctx, pathname, ex));
    copy.release();
    if (!res.headersSent) {
      res.writeHead(502, {
        'content-type': 'application/json',
        ...(ctx.options.violationsHeader ? { [VIOLATIONS_HEADER]: String(violations) } : {}),
      });
      res.end(JSON.stringify({ error: message }));
    }
    ctx.options.onExchange?.(ex, performance.now() - started);
    return;
  }
  const { response, held, whole } = answer;
  // D-263: with no violations header and no --strict the answer does not depend on the verdicts, so it goes
  // to the client first and the exchange is judged after.
  const answerFirst = whole && !ctx.options.strict && !ctx.options.violationsHeader;
  if (answerFirst) {
    res.writeHead(response.statusCode ?? 0, endToEnd(response.headers));
    res.end(held.bytes());
  }
  const text = held.bytes().toString('utf8');
  const wire: WireResponse = {
    status: response.statusCode ?? 0,
    headers: flat(response.headers),
    text,
    json: whole ? parseJson(text) : undefined,
  };
  const ex = exchange(wire, !whole);
  const judgements = judge(ctx, pathname, ex);
  const violations = ctx.options.ledger.record(ex, judgements);
  copy.release();
  const headers = endToEnd(response.headers);
  if (ctx.options.violationsHeader) headers[VIOLATIONS_HEADER] = whole ? String(violations) : 'not-judged';
  if (answerFirst) {
    // Answered above.
  } else if (whole && violations > 0 && ctx.options.strict) {
    // --strict: the client gets the violations instead of the upstream's invalid answer.
    const found = judgements.flatMap((j) =>
      j.verdicts
        .filter((v) => !v.ok)
        .map((v) => ({ ...v, check: `generated.${v.check}`, operation: `${j.surface} ${j.operation}` })),
    );
    const body = JSON.stringify({
      error: `the upstream's answer (HTTP ${wire.status}) breaks the contract: ${found[0]?.message ?? ''}`,
      violations: found.map(({ ok: _ok, ...v }) => v),
    });
    res.writeHead(502, {
      'content-type': 'application/json',
      ...(ctx.options.violationsHeader ? { [VIOLATIONS_HEADER]: String(violations) } : {}),
    });
    res.end(body);
  } else if (whole) {
    res.writeHead(wire.status, headers);
    res.end(held.bytes());
  } else {
    res.writeHead(wire.status, headers);
    res.write(held.bytes());
    await pipeline(response, res).catch(() => res.destroy());
  }
  held.release();
  ctx.options.onExchange?.(ex, performance.now() - started);
}

/** The judgements of one exchange, by the contract its path names; security headers on every https answer. */
function judge(ctx: Context, pathname: string, ex: ProxiedExchange): Judgement[] {
  const route = ctx.routes.match(ex.request.method, pathname);
  let out: Judgement[] = [];
  if (route.kind === 'rpc') {
    out = judgeRpc(ctx.rpc, ex);
    for (const j of out) if (!j.notJudged) ctx.options.ledger.coverRpc(ctx.rpc, j, ex);
  } else if (route.kind === 'operation') {
    const j = judgeOpenApi(route.contract, route, ex);
    if (!j.notJudged) ctx.options.ledger.cover(route.op, j.case as Parameters<ProxyLedger['cover']>[1], ex);
    out = [j];
  } else if (route.kind === 'unmatched') out = [judgeOpenApi(route.contract, undefined, ex)];
  const first = out[0];
  if (first && !first.notJudged && ex.response.status !== 0 && ctx.upstream.url.protocol === 'https:') {
    // D-207: every answer of an https origin carries HSTS and nosniff.
    const problem = securityHeadersProblem(ex.response);
    first.verdicts.push(
      problem
        ? { check: 'security_headers', ok: false, message: problem, pointer: '/headers' }
        : { check: 'security_headers', ok: true, pointer: '' },
    );
  }
  return out;
}

/** Header values as single strings (repeated ones joined as HTTP joins them). */
function flat(headers: http.IncomingHttpHeaders | Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A WebSocket upgrade (`/ws`) is passed through byte for byte, not judged. */
function tunnel(
  upstream: Upstream,
  caCert: string | undefined,
  req: http.IncomingMessage,
  socket: net.Socket,
  head: Buffer,
): void {
  const url = upstreamUrl(upstream.url, req.url ?? '/');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const onConnect = () => {
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.url.host : req.rawHeaders[i + 1]}`);
    }
    out.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) out.write(head);
    socket.pipe(out).pipe(socket);
  };
  const out =
    url.protocol === 'https:'
      ? tls.connect(
          {
            host: url.hostname,
            port,
            ...(net.isIP(url.hostname) ? {} : { servername: url.hostname }),
            ...(caCert ? { ca: caCert } : {}),
          },
          onConnect,
        )
      : net.connect(port, url.hostname, onConnect);
  out.on('error', () => socket.destroy());
  socket.on('error', () => out.destroy());
}
