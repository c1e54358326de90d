// The API reference pages over HTTP (D-154, D-155, D-156): every page, contract and renderer asset of
// `{base_url}/docs` on the in-process reference stack over its real TLS answers 200 with its content type,
// cache headers and the 'self'-only Content-Security-Policy; an unknown page is a 404 in the base origin's
// {error, code} shape. The plugin alone (app.inject) shows the unbuilt case and the rate limit.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { buildDocs } from '../../scripts/build-docs.ts';
import { CONTRACTS } from '../../src/server/docs/contracts.ts';
import { SPECS_DIR } from '../../src/paths.ts';
import { DOCS_CSP, docsRoutes } from '../../src/server/docs/routes.ts';
import { installErrorHandling } from '../../src/server/http/error-handler.ts';
import { tlsFetch } from '../wallet-client/support.ts';

const ASSETS: Record<string, string> = {
  'redoc.standalone.js': 'text/javascript; charset=utf-8',
  'openrpc.js': 'text/javascript; charset=utf-8',
  'asyncapi.css': 'text/css; charset=utf-8',
  'docs.css': 'text/css; charset=utf-8',
};

let target: Target;
let get: (pathname: string, headers?: Record<string, string>) => Promise<Response>;

beforeAll(async () => {
  // As `npm start` does before serving. The stack reads the built assets when it starts, so it is this file's
  // own, started after the build (a worker's shared stack may have started before it, in a fresh clone).
  await buildDocs();
  target = await referenceTarget();
  const fetchTls = tlsFetch(target.caCert!);
  get = (pathname, headers = {}) => fetchTls(new URL(pathname, target.base), { headers });
}, 180_000);
afterAll(() => target?.close?.());

/** The headers every docs response carries. */
function expectDocsHeaders(response: Response) {
  expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('{base_url}/docs over TLS', () => {
  it('the index and each contract page answer 200 text/html with the CSP and cache headers', async () => {
    for (const pathname of ['/docs', '/docs/', ...CONTRACTS.map((c) => `/docs/${c.slug}`)]) {
      const response = await get(pathname);
      expect(response.status, pathname).toBe(200);
      expect(response.headers.get('content-type'), pathname).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control'), pathname).toBe('public, max-age=300');
      expect(response.headers.get('etag'), pathname).toMatch(/^"[\w-]{22}"$/);
      expectDocsHeaders(response);
      const html = await response.text();
      // Nothing a page loads (scripts, images, stylesheets) comes from another host; links to read on may.
      expect(html.match(/\ssrc="(?:https?:)?\/\/[^"]*"/g) ?? [], pathname).toEqual([]);
      expect(html.match(/<link[^>]*href="(?:https?:)?\/\/[^"]*"/g) ?? [], pathname).toEqual([]);
      expect(html, pathname).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
    }
  });

  it('the CSP allows only the origin itself for every kind of resource', () => {
    const directives: Record<string, string[]> = Object.fromEntries(
      DOCS_CSP.split('; ').map((directive) => {
        const [name, ...values] = directive.split(' ');
        return [name!, values];
      }),
    );
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    for (const values of Object.values(directives)) {
      for (const value of values) expect(["'self'", "'none'", "'unsafe-inline'", 'data:']).toContain(value);
    }
  });

  it('each contract is served byte for byte from specs/ with its media type', async () => {
    for (const contract of CONTRACTS) {
      const response = await get(`/docs/specs/${contract.file}`);
      expect(response.status, contract.file).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        contract.file.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
      );
      expectDocsHeaders(response);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(path.join(SPECS_DIR, contract.file)))).toBe(
        true,
      );
    }
  });

  it('each renderer asset answers 200 with its content type and a day of caching', async () => {
    for (const [name, type] of Object.entries(ASSETS)) {
      const response = await get(`/docs/assets/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(type);
      expect(response.headers.get('cache-control'), name).toBe('public, max-age=86400');
      expectDocsHeaders(response);
      expect((await response.arrayBuffer()).byteLength, name).toBeGreaterThan(100);
    }
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const first = await get('/docs/assets/redoc.standalone.js');
    const etag = first.headers.get('etag')!;
    const again = await get('/docs/assets/redoc.standalone.js', { 'if-none-match': `W/"other", ${etag}` });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
  });

  it('an unknown page, contract or asset is a 404 in the base origin error shape', async () => {
    for (const pathname of [
      '/docs/nope',
      '/docs/specs/DECISIONS.md',
      '/docs/specs/../package.json',
      '/docs/assets/redoc.standalone.js.map',
    ]) {
      const response = await get(pathname);
      expect(response.status, pathname).toBe(404);
      expect(response.headers.get('content-type'), pathname).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: string; code: string };
      expect(body.code, pathname).toBe('NOT_FOUND');
      expect(typeof body.error).toBe('string');
    }
  });
});

describe('the docs plugin alone', () => {
  async function app(options: { buildDir?: string; requestsPerSecond: number }) {
    const instance = Fastify();
    installErrorHandling(instance);
    await instance.register(docsRoutes, { prefix: '/docs', ...options });
    return instance;
  }

  it('without the build, the OpenRPC and AsyncAPI pages and their assets answer 503 DOCS_NOT_BUILT; the Redoc pages still work', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'svckit-docs-unbuilt-'));
    try {
      const instance = await app({ buildDir: empty, requestsPerSecond: 0 });
      for (const url of ['/docs/chain', '/docs/webhooks', '/docs/assets/openrpc.js', '/docs/assets/asyncapi.css']) {
        const response = await instance.inject({ url });
        expect(response.statusCode, url).toBe(503);
        expect(response.json(), url).toEqual({
          error: expect.stringContaining('npm run build:docs'),
          code: 'DOCS_NOT_BUILT',
        });
      }
      expect((await instance.inject({ url: '/docs/institutional' })).statusCode).toBe(200);
      await instance.close();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('is rate limited per IP with a 429 in the {error, code} shape', async () => {
    const instance = await app({ requestsPerSecond: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await instance.inject({ url: '/docs' })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await instance.inject({ url: '/docs/assets/docs.css' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.headers['retry-after']).toBeDefined();
    await instance.close();
  });
});
