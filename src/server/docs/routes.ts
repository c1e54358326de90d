/**
 * The API reference pages of the base origin (D-154): `{base_url}/docs` lists the contracts and
 * `{base_url}/docs/<contract>` renders one — the four OpenAPI contracts with Redoc, the AsyncAPI webhook
 * events with @asyncapi/react-component and the OpenRPC chain methods with @open-rpc/docs-react. The specs
 * and the renderer bundles are read once at start and served from memory; nothing comes from a CDN.
 * Register with `base.register(docsRoutes, { prefix: '/docs', requestsPerSecond })` on an origin that has
 * installErrorHandling, so unknown pages answer 404 in the origin's `{error, code}` shape.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { limitRequests } from '../http/rate-limit.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { BUILT_ASSETS, loadAssets } from './assets.ts';
import { hold, readContracts, type HeldFile } from './contracts.ts';
import { contractPage, indexPage } from './pages.ts';

/** Options of {@link docsRoutes}. */
export interface DocsOptions {
  /** Per-IP requests per second (D-155); 0 leaves the pages unlimited. */
  requestsPerSecond: number;
  /** The folder scripts/build-docs.ts wrote the OpenRPC bundle to (default dist/docs). */
  buildDir?: string;
  /** The folder the contracts are read from (default the repository's specs/). */
  specsDir?: string;
}

/**
 * D-156: every docs response carries a policy that allows only the origin itself, so a page can load
 * nothing from a CDN or any other host. Styles also allow 'unsafe-inline' because the three renderers
 * style their components at run time (styled-components, emotion, React style attributes); scripts
 * stay 'self' only, so no inline or foreign script runs.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// D-155: pages and specs change with the server version, so they are revalidated after 5 minutes; the
// renderer bundles change only with a dependency upgrade and are kept for a day. Both carry an ETag.
const PAGE_MAX_AGE = 300;
const ASSET_MAX_AGE = 86_400;

/** Fastify plugin serving the reference pages, the contracts they render and the renderer bundles. */
export async function docsRoutes(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await limitRequests(app, options.requestsPerSecond);
  const contracts = readContracts(options.specsDir);
  const assets = loadAssets(options.buildDir);
  const prefix = app.prefix;

  app.addHook('onSend', async (_request, reply) => {
    reply
      .header('content-security-policy', DOCS_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
  });

  const html = (text: string) => hold(Buffer.from(text, 'utf8'), 'text/html; charset=utf-8');
  const index = html(indexPage(prefix, contracts));
  app.get('/', async (request, reply) => send(request, reply, index, PAGE_MAX_AGE));
  for (const contract of contracts) {
    app.get(`/specs/${contract.file}`, async (request, reply) => send(request, reply, contract.spec, PAGE_MAX_AGE));
    // The OpenRPC and AsyncAPI pages need scripts/build-docs.ts's output; without it they say how to build it.
    if (assets.notBuilt && contract.renderer !== 'redoc') {
      const reason = assets.notBuilt;
      app.get(`/${contract.slug}`, async () => {
        throw new RestError(ErrorCode.DOCS_NOT_BUILT, reason);
      });
      continue;
    }
    const page = html(contractPage(prefix, contracts, contract, assets.asyncapiHtml));
    app.get(`/${contract.slug}`, async (request, reply) => send(request, reply, page, PAGE_MAX_AGE));
  }
  for (const [name, file] of assets.files) {
    app.get(`/assets/${name}`, async (request, reply) => send(request, reply, file, ASSET_MAX_AGE));
  }
  if (assets.notBuilt) {
    const reason = assets.notBuilt;
    for (const name of BUILT_ASSETS) {
      app.get(`/assets/${name}`, async () => {
        throw new RestError(ErrorCode.DOCS_NOT_BUILT, reason);
      });
    }
  }
}

// RFC 9110 §13.1.2: If-None-Match holds a list of entity tags (or *); weak comparison applies.
function send(request: FastifyRequest, reply: FastifyReply, file: HeldFile, maxAge: number) {
  reply.header('cache-control', `public, max-age=${maxAge}`).header('etag', file.etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch &&
    (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag))
  ) {
    return reply.code(304).send();
  }
  return reply.type(file.contentType).send(file.body);
}
