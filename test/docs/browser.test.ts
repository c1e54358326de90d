// The API reference pages in headless Chromium (D-154): each page of `{base_url}/docs` is opened against the
// in-process reference stack over its real TLS, with every request to another host refused, so the renderers
// prove they need no CDN; named operations of each contract must appear. Screenshots go to
// test/docs/screenshots/ (gitignored) and their paths are printed.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { buildDocs } from '../../scripts/build-docs.ts';
import { CHROMIUM, CHROMIUM_FLAGS, trustServerFlag } from '../chromium.ts';
import { EXPECTED, SECTIONS, SLUGS } from './support.ts';

const hasChromium = existsSync(CHROMIUM);
const suite = hasChromium ? describe : describe.skip;
const title = hasChromium
  ? 'API reference pages in headless Chromium'
  : `API reference pages in headless Chromium (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
// A skipped test is not a pass: say so in the log, not only in the verbose report.
if (!hasChromium) console.warn(`docs: ${title}`);

const REDOC_LOGO =
  /^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates the following Content Security Policy directive: "img-src 'self' data:"/;
const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

let target: Target;
let context: BrowserContext;
let origin: string;
const foreign: string[] = [];
const cleanup: string[] = [];

suite(title, () => {
  beforeAll(async () => {
    // As `npm start` does before serving: the OpenRPC bundle is built, then the stack reads it once.
    await buildDocs();
    target = await referenceTarget();
    origin = target.base!.origin;
    const profile = mkdtempSync(path.join(tmpdir(), 'svckit-docs-chromium-'));
    cleanup.push(profile);
    // A fresh profile directory (the persistent context's user data dir) for every run.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      // The stack's own certificate is trusted by its key, not by ignoring every TLS error.
      args: ['--headless', ...CHROMIUM_FLAGS, await trustServerFlag(target.base!, target.caCert!)],
    });
    // Only the test server may be reached: a renderer that needs a CDN fails here.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      foreign.push(url);
      return route.abort('blockedbyclient');
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await target?.close?.();
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  it('the index links every contract page', async () => {
    const page = await context.newPage();
    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    const links = await page.$$eval('main a', (anchors) => anchors.map((a) => a.getAttribute('href')));
    for (const slug of SLUGS) expect(links).toContain(`/docs/${slug}`);
    const file = path.join(SCREENSHOTS, 'index.png');
    await page.screenshot({ path: file, fullPage: true });
    console.log(`docs screenshot: ${file}`);
    await page.close();
  }, 60_000);

  for (const slug of SLUGS) {
    it(`/docs/${slug} renders its operations with no request to another host and no CSP violation`, async () => {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        // Redoc's side menu shows a "by Redocly" logo from its CDN; the policy refuses it (no request leaves the
        // browser, as `foreign` shows) and Redoc hides the image. Every other error counts.
        if (message.type() === 'error' && !REDOC_LOGO.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      const response = await page.goto(`${origin}/docs/${slug}`);
      expect(response?.status()).toBe(200);
      const file = path.join(SCREENSHOTS, `${slug}.png`);
      try {
        for (const text of EXPECTED[slug]!) {
          await page.getByText(text, { exact: true }).first().waitFor({ state: 'attached', timeout: 45_000 });
        }
        for (const id of SECTIONS[slug]!)
          await page.locator(`[id="${id}"]`).first().waitFor({ state: 'attached', timeout: 15_000 });
        // The screenshot shows the first named operation rather than the contract's introduction.
        await page.getByText(EXPECTED[slug]![0]!, { exact: true }).last().scrollIntoViewIfNeeded();
      } finally {
        // Taken whether or not the operations rendered, so a failure can be looked at.
        await page.screenshot({ path: file });
        console.log(`docs screenshot: ${file}`);
      }
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
      await page.close();
    }, 90_000);
  }
});
