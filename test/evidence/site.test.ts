// The site origin's evidence route (surface F: "GET {site_url}/.well-known/pqc-evidence.json returns
// the Evidence document"): cache headers, ETag and 304, a clear 503 before a document is built.
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/server/http/error-handler.ts';
import { evidenceSiteRoutes } from '../../src/server/evidence/routes.ts';
import { editedExample, evidenceExample as example } from './example.ts';

async function site(dir: string): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app); // as the site origin does
  await app.register(evidenceSiteRoutes, { evidenceDir: dir, maxAgeSeconds: 600 });
  return app;
}

describe('GET /.well-known/pqc-evidence.json', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  it('answers 503 {error} until the document is built, then 200 application/json with cache headers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-site-'));
    const app = await site(dir);
    apps.push(app);
    const before = await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' });
    expect(before.statusCode).toBe(503);
    expect(before.json()).toEqual({
      error: expect.stringContaining('has not been built yet'),
      code: 'EVIDENCE_NOT_BUILT',
    });
    // D-153: a client is told when to ask again, and the public answer names no server path.
    expect(before.headers['retry-after']).toBe('10');
    expect(before.body).not.toContain(dir);
    const doc = { ...example, generated: new Date().toISOString() };
    writeFileSync(join(dir, 'pqc-evidence.json'), JSON.stringify(doc));
    const ok = await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ok.headers['cache-control']).toBe('public, max-age=600');
    expect(ok.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(ok.headers['last-modified']).toBeTruthy();
    expect(ok.json()).toEqual(doc);
  });

  it('answers 304 to a matching If-None-Match, and a new ETag once the document changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-site-'));
    writeFileSync(join(dir, 'pqc-evidence.json'), JSON.stringify({ ...example, generated: new Date().toISOString() }));
    const app = await site(dir);
    apps.push(app);
    const first = await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' });
    const etag = String(first.headers.etag);
    const cached = await app.inject({
      method: 'GET',
      url: '/.well-known/pqc-evidence.json',
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    expect(cached.headers.etag).toBe(etag);
    expect(cached.headers['cache-control']).toBe('public, max-age=600');
    const head = await app.inject({ method: 'HEAD', url: '/.well-known/pqc-evidence.json' });
    expect(head.statusCode).toBe(200);
    // A rebuild of the same size: the store sees the change by its mtime, set a second later here.
    const written = statSync(join(dir, 'pqc-evidence.json')).mtime;
    writeFileSync(
      join(dir, 'pqc-evidence.json'),
      JSON.stringify({ ...example, generated: new Date(Date.now() + 1000).toISOString() }),
    );
    utimesSync(join(dir, 'pqc-evidence.json'), written, new Date(written.getTime() + 1000));
    const changed = await app.inject({
      method: 'GET',
      url: '/.well-known/pqc-evidence.json',
      headers: { 'if-none-match': etag },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('refuses to publish a document that does not verify, but still serves a stale one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-site-'));
    const app = await site(dir);
    apps.push(app);
    const broken = editedExample((d) => {
      d.conformance.acvp.passed = 180; // a skipped case counted as a pass
    });
    writeFileSync(join(dir, 'pqc-evidence.json'), JSON.stringify(broken));
    const refused = await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toContain('skipped.not_a_pass');
    writeFileSync(join(dir, 'pqc-evidence.json'), '{"not": "closed"');
    expect((await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' })).json().error).toContain(
      'is not JSON',
    );
    writeFileSync(join(dir, 'pqc-evidence.json'), JSON.stringify(example)); // generated 2026-11-21T09:30Z: stale later on
    expect((await app.inject({ method: 'GET', url: '/.well-known/pqc-evidence.json' })).statusCode).toBe(200);
  });

  it('serves the SBOM beside the document, and 404 when it is not there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-site-'));
    const app = await site(dir);
    apps.push(app);
    expect((await app.inject({ method: 'GET', url: '/pqc-evidence/sbom.cdx.json' })).statusCode).toBe(404);
    writeFileSync(join(dir, 'sbom.cdx.json'), JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6' }));
    const sbom = await app.inject({ method: 'GET', url: '/pqc-evidence/sbom.cdx.json' });
    expect(sbom.statusCode).toBe(200);
    expect(sbom.headers['content-type']).toBe('application/vnd.cyclonedx+json; charset=utf-8');
    rmSync(join(dir, 'sbom.cdx.json'));
    expect((await app.inject({ method: 'GET', url: '/pqc-evidence/sbom.cdx.json' })).statusCode).toBe(404);
  });
});
