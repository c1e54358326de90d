// The site origin ({site_url}): its per-IP rate limit (D-146) answers 429 in the {error, code} shape with
// Retry-After, and the extension downloads are served from a package built once per build of the
// extension directory, not from a walk of the directory on every request.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpResult, request } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { extensionFixture } from './support.ts';

const extensionDir = extensionFixture();
let target: Target;
beforeAll(async () => {
  target = await referenceTarget({ env: { SVC_WALLET_EXTENSION_DIR: extensionDir } });
});
afterAll(async () => {
  await target?.close?.();
  rmSync(extensionDir, { recursive: true, force: true });
});

const site = (file: string) => request(target, new URL(file, target.site));
const PACKAGE = 'downloads/svckit-wallet-extension-0.1.0.zip';

describe('site origin', () => {
  it('serves the package built once: removing a built file changes nothing until the build changes', async () => {
    const digest = await site(`${PACKAGE}.sha256`);
    expect(digest.status, digest.text).toBe(200);
    // A walk per request would now package one file fewer, with another digest.
    rmSync(path.join(extensionDir, 'scripts', 'inject.js'));
    expect((await site(`${PACKAGE}.sha256`)).text).toBe(digest.text);
    const zip = await request(target, new URL(PACKAGE, target.site));
    expect(zip.status).toBe(200);
    expect(zip.text).toContain('scripts/inject.js');
    // A rebuild (the build script removes the directory and writes it again) is picked up.
    rmSync(extensionDir, { recursive: true, force: true });
    mkdirSync(path.join(extensionDir, 'scripts'), { recursive: true });
    writeFileSync(
      path.join(extensionDir, 'manifest.json'),
      JSON.stringify({ manifest_version: 3, name: 'svckit wallet (fixture)', version: '0.1.0' }),
    );
    writeFileSync(path.join(extensionDir, 'scripts', 'other.js'), '// rebuilt\n');
    const rebuilt = await site(`${PACKAGE}.sha256`);
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.text).not.toBe(digest.text);
  });

  it('answers 429 {error, code: RATE_LIMITED} with Retry-After once 50 requests per second per IP are used (D-146)', async () => {
    let served: HttpResult | undefined;
    let refused: HttpResult | undefined;
    for (let wave = 0; wave < 50 && !refused; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => site('downloads/svckit-wallet-extension.pub')),
      );
      served ??= answers.find((a) => a.status === 200);
      refused = answers.find((a) => a.status === 429);
    }
    expect(refused, 'the site origin never answered 429').toBeDefined();
    expect(served?.headers['x-ratelimit-limit']).toBe('50');
    expect(refused!.json).toMatchObject({
      code: 'RATE_LIMITED',
      error: expect.stringContaining('50 requests per second per IP'),
    });
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
