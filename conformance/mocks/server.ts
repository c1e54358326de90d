/**
 * The validating mock service: the generated MSW mocks (`mocks/*.gen.ts`) behind an in-process HTTPS server
 * with the reference stack's layout (base origin: institutional `/wallet/api/v1`, explorer `/api`, admin
 * `/admin/v1`; wallet origin: the wallet session API at its root) and its TLS rule (TLS 1.3, X25519MLKEM768).
 * Every request is first held against its contract operation (check-request.ts); a conforming request gets
 * the operation's example answer from the generated handlers, any other the contract's documented error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getResponse, type HttpHandler } from 'msw';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { httpsOptions } from '../../src/server/tls/tls-options.ts';
import { exampleHandlers as adminHandlers } from '../../mocks/admin.gen.ts';
import { exampleHandlers as explorerHandlers } from '../../mocks/explorer.gen.ts';
import { exampleHandlers as institutionalHandlers } from '../../mocks/institutional.gen.ts';
import { exampleHandlers as walletHandlers } from '../../mocks/wallet.gen.ts';
import { openApiContract } from '../checks/support/openapi.ts';
import type { DocumentValidator } from '../checks/spec-examples/validator.ts';
import { getAt, isObject } from '../checks/spec-examples/pointer.ts';
import { checkRequest, type SecuritySchemes } from './check-request.ts';
import { readRoutes, type Route } from './routes.ts';

/** The one credential the mocks accept for every bearer scheme (D-186); the mocks target hands it to the harness. */
export const MOCK_CREDENTIAL = 'Bearer svc_mocks0000000000000000000000000000000000000';

/** Largest request body the mocks read (the reference's institutional limit is of the same order). */
const MAX_BODY_BYTES = 1024 * 1024;

type Origin = 'base' | 'wallet';

/** One contract mounted on an origin. */
interface Mounted {
  prefix: string;
  routes: Route[];
  validator: DocumentValidator;
  doc: Record<string, unknown>;
  schemes: SecuritySchemes;
  handlers: readonly HttpHandler[];
}

const LAYOUT: {
  origin: Origin;
  file: string;
  prefix: string;
  handlers: (baseUrl: string) => readonly HttpHandler[];
}[] = [
  {
    origin: 'base',
    file: 'institutional.openapi.yaml',
    prefix: '/wallet/api/v1',
    handlers: (b) => institutionalHandlers({ baseUrl: b as never }),
  },
  {
    origin: 'base',
    file: 'explorer.openapi.yaml',
    prefix: '/api',
    handlers: (b) => explorerHandlers({ baseUrl: b as never }),
  },
  {
    origin: 'base',
    file: 'admin.openapi.yaml',
    prefix: '/admin/v1',
    handlers: (b) => adminHandlers({ baseUrl: b as never }),
  },
  {
    origin: 'wallet',
    file: 'wallet.openapi.yaml',
    prefix: '',
    handlers: (b) => walletHandlers({ baseUrl: b as never }),
  },
];

/** The running mock service. */
export interface MockService {
  /** {base_url} of the mocks. */
  base: URL;
  /** {wallet_api_url} of the mocks. */
  wallet: URL;
  /** PEM of the mocks' CA. */
  caCert: string;
  /** Stops both listeners and removes the TLS material. */
  close(): Promise<void>;
}

/** D-207: every answer of every origin of the service, the mocks' included, keeps browsers on HTTPS and on the declared type. */
const SECURITY_HEADERS = { 'strict-transport-security': 'max-age=31536000', 'x-content-type-options': 'nosniff' };

/** Writes a JSON answer. */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(text);
}

/** The documented answer for a refusal: the contract's example for that status, its `error` detail replaced. */
function documentedError(m: Mounted, route: Route | undefined, status: number, detail: string): unknown {
  const at = route?.responseAt.get(String(status));
  const response = at ? getAt(m.doc, at) : undefined;
  const media = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
  let example: unknown;
  if (isObject(media)) {
    if (media.example !== undefined) example = media.example;
    else if (isObject(media.examples)) {
      const first = Object.values(media.examples)[0];
      if (isObject(first)) example = first.value;
    }
  }
  return isObject(example) && typeof example.error === 'string' ? { ...example, error: detail } : { error: detail };
}

/** Reads the body up to the limit; undefined when it is larger. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers one request on an origin. */
async function serve(mounted: Mounted[], origin: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  const m = mounted.find((s) => url.pathname === s.prefix || url.pathname.startsWith(`${s.prefix}/`));
  if (!m) return send(res, 404, { error: `no operation at ${url.pathname}` });
  const body = await readBody(req);
  if (body === undefined) return send(res, 413, { error: `request body larger than ${MAX_BODY_BYTES} bytes` });
  const rest = url.pathname.slice(m.prefix.length) || '/';
  const onPath = m.routes.filter((r) => r.pattern.test(rest));
  if (onPath.length === 0) return send(res, 404, documentedError(m, undefined, 404, `no operation at ${url.pathname}`));
  const method = req.method ?? 'GET';
  const route = onPath.find((r) => r.method === method);
  if (!route)
    return send(
      res,
      405,
      { error: `${method} is not an operation of ${url.pathname}` },
      {
        allow: onPath.map((r) => r.method).join(', '),
      },
    );
  const match = route.pattern.exec(rest);
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const refusal = checkRequest(
    route,
    { method, pathValues: (match?.slice(1) ?? []).map(decodeURIComponent), query: url.searchParams, headers, body },
    m.validator,
    m.schemes,
    MOCK_CREDENTIAL,
  );
  if (refusal) return send(res, refusal.status, documentedError(m, route, refusal.status, refusal.detail));
  const request = new Request(url, {
    method,
    headers: headers as Record<string, string>,
    ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
  });
  const answer = await getResponse([...m.handlers], request);
  if (!answer) return send(res, 501, { error: `the mocks have no example answer for ${route.operationId}` });
  res.writeHead(answer.status, { ...Object.fromEntries(answer.headers.entries()), ...SECURITY_HEADERS });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** Listens on an ephemeral loopback port. */
function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Starts the validating mocks of the four OpenAPI contracts found in `specsDir`. */
export async function startMockService(specsDir: URL): Promise<MockService> {
  const tlsDir = mkdtempSync(path.join(tmpdir(), 'svckit-mocks-'));
  const material = await ensureDevCertificates(tlsDir, [], 'svckit conformance mocks CA');
  const servers: Record<Origin, Server> = {
    base: createServer(httpsOptions(material, false)),
    wallet: createServer(httpsOptions(material, false)),
  };
  const ports = { base: await listen(servers.base), wallet: await listen(servers.wallet) };
  const urls = {
    base: new URL(`https://localhost:${ports.base}/`),
    wallet: new URL(`https://localhost:${ports.wallet}/`),
  };
  for (const origin of ['base', 'wallet'] as const) {
    const mounted: Mounted[] = [];
    for (const entry of LAYOUT.filter((e) => e.origin === origin)) {
      const { doc, validator } = await openApiContract(specsDir, entry.file);
      const components = (doc.components ?? {}) as Record<string, unknown>;
      mounted.push({
        prefix: entry.prefix,
        routes: readRoutes(doc),
        validator,
        doc,
        schemes: (components.securitySchemes ?? {}) as SecuritySchemes,
        handlers: entry.handlers(new URL(entry.prefix, urls[origin]).href.replace(/\/$/, '')),
      });
    }
    mounted.sort((a, b) => b.prefix.length - a.prefix.length);
    servers[origin].on('request', (req, res) => {
      serve(mounted, urls[origin], req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, { error: `mock failure: ${(error as Error).message}` });
        else res.destroy();
      });
    });
    servers[origin].on('clientError', (_err, socket) => socket.destroy());
  }
  return {
    base: urls.base,
    wallet: urls.wallet,
    caCert: material.caCert,
    async close() {
      await Promise.all(Object.values(servers).map((s) => new Promise((r) => s.close(r))));
      rmSync(tlsDir, { recursive: true, force: true });
    },
  };
}
