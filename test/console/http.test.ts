// The administrator console's routes (D-271, D-272) on the plugin alone (app.inject): the page and its built
// assets with the strict policy, no inline script and ETags; a missing build answers 503 saying how to build
// it (the server does not crash); unknown paths are 404 and the rate limit is 429, both in the {error, code} shape.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.ts';
import { CONSOLE_CSP, consoleRoutes } from '../../src/server/console/routes.ts';
import { installErrorHandling } from '../../src/server/http/error-handler.ts';

let built: string;

beforeAll(async () => {
  built = mkdtempSync(path.join(tmpdir(), 'svckit-console-build-'));
  await buildConsole(built);
}, 120_000);
afterAll(() => rmSync(built, { recursive: true, force: true }));

async function app(options: { buildDir: string; requestsPerSecond: number }) {
  const instance = Fastify();
  installErrorHandling(instance);
  await instance.register(consoleRoutes, { prefix: '/console', ...options });
  return instance;
}

describe('{base_url}/console', () => {
  it('serves the page and its assets with the strict policy, no inline script and an ETag', async () => {
    const instance = await app({ buildDir: built, requestsPerSecond: 0 });
    for (const [url, type] of [
      ['/console/', 'text/html; charset=utf-8'],
      ['/console', 'text/html; charset=utf-8'],
      ['/console/assets/console.js', 'text/javascript; charset=utf-8'],
      ['/console/assets/console.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await instance.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe(type);
      expect(response.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(response.headers['cache-control'], url).toBe('no-store');
      const again = await instance.inject({ url, headers: { 'if-none-match': String(response.headers.etag) } });
      expect(again.statusCode, url).toBe(304);
    }
    const html = (await instance.inject({ url: '/console/' })).body;
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html.match(/\s(?:src|href)="(?:https?:)?\/\/[^"]*"/g) ?? []).toEqual([]);
    // The bundle is the built file, byte for byte.
    const js = await instance.inject({ url: '/console/assets/console.js' });
    expect(js.rawPayload.equals(readFileSync(path.join(built, 'console.js')))).toBe(true);
    const unknown = await instance.inject({ url: '/console/assets/other.js' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
    await instance.close();
  });

  it('the policy allows only the origin itself and no inline script or style', () => {
    const directives: Record<string, string[]> = Object.fromEntries(
      CONSOLE_CSP.split('; ').map((directive) => {
        const [name, ...values] = directive.split(' ');
        return [name!, values];
      }),
    );
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    for (const values of Object.values(directives))
      for (const value of values) expect(["'self'", "'none'", 'data:']).toContain(value);
  });

  it('without the build, the page and assets answer 503 saying how to build it', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'svckit-console-unbuilt-'));
    try {
      const instance = await app({ buildDir: empty, requestsPerSecond: 0 });
      for (const url of ['/console/', '/console/assets/console.js', '/console/assets/console.css']) {
        const response = await instance.inject({ url });
        expect(response.statusCode, url).toBe(503);
        expect(response.json(), url).toEqual({
          error: expect.stringContaining('npm run build:console'),
          code: 'UNAVAILABLE',
        });
      }
      await instance.close();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('is rate limited per IP with a 429 in the {error, code} shape', async () => {
    const instance = await app({ buildDir: built, requestsPerSecond: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await instance.inject({ url: '/console/' })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await instance.inject({ url: '/console/assets/console.css' });
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    await instance.close();
  });
});
