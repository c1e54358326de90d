// The run's HTML report (conformance/report/html.ts) from a realistic run report: the text itself (escaping of
// what the deployment wrote, failures before everything else, every check present, no external asset), then
// the file opened from disk in headless Chromium: the filters, keyboard focus, no sideways scrolling at 390 px,
// no console error, and screenshots at 1280 and 390 px in test/docs/screenshots/ (gitignored) for a person.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHtml } from '../../conformance/report/html.ts';
import { verdictOf } from '../../conformance/report/html-header.ts';
import { checkSurfaces } from '../../conformance/report/html-tables.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.ts';
import { HOSTILE, runReport } from './helpers/run-report.ts';

const report = runReport();
const html = formatHtml(report);
/** The page without the line-break hints inside check ids. */
const text = html.replaceAll('<wbr>', '');
const SHOTS = path.join(REPO_ROOT, 'test/docs/screenshots');
const inline = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? '';
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

describe('the HTML report as text', () => {
  it('shows what the deployment wrote as text, never as markup', () => {
    for (const text of Object.values(HOSTILE)) expect(html).not.toContain(text);
    expect(html).toContain('&lt;script&gt;window.__pwnedMessage = 1&lt;/script&gt;');
    expect(html).toContain('&lt;script&gt;window.__pwnedBody = 1&lt;/script&gt;&lt;b&gt;boom&lt;/b&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwnedReason = 1&quot;&gt;');
    // One script element only: the page's own.
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('is one file: no external asset, and its CSP admits only its own style sheet and script', () => {
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b|<[^>]*\ssrc=|@import|url\(/i);
    expect(html).not.toMatch(/href="(?!#)/);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'sha256-${sha256(inline('style'))}'`);
    expect(csp).toContain(`script-src 'sha256-${sha256(inline('script'))}'`);
  });

  it('states the verdict with passed, failed and skipped counted separately', () => {
    const { passed, failed, skipped } = report.summary;
    expect([passed, failed, skipped]).toEqual([15, 3, 4]);
    const verdict = /<p id="verdict"[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    expect(verdict).toContain('<strong>Failed</strong>');
    expect(verdict).toContain(`${failed} failed</a>, ${passed} passed, ${skipped} skipped`);
    expect(verdict).toContain('1 gate failed');
    expect(verdict).toContain('2 things the run created could not be undone');
    for (const [id, n] of Object.entries({ passed, failed, skipped, requests: report.requests, score: report.score }))
      expect(html).toContain(`id="${id}">${n}<`);
  });

  it('never calls a run with a failed gate, or in which nothing passed, a pass', () => {
    const clean = { ...report, summary: { passed: 15, failed: 0, skipped: 4 } };
    expect(verdictOf(clean)).toBe('failed');
    expect(verdictOf({ ...clean, gates: [] })).toBe('passed');
    expect(verdictOf({ ...clean, gates: [], interrupted: true })).toBe('interrupted');
    expect(verdictOf({ ...clean, gates: [], summary: { passed: 0, failed: 0, skipped: 22 } })).toBe('nothing passed');
    const quiet = formatHtml({
      ...clean,
      gates: [],
      checks: report.checks.filter((c) => c.status !== 'failed'),
      cleanup: null,
    });
    expect(quiet).toContain('<p class="ok-note">No check failed.</p>');
    expect(quiet).toContain('<strong>Passed</strong>: <a href="#failures">0 failed</a>, 15 passed, 4 skipped');
    expect(quiet).toContain('No cleanup ran in this run.');
    expect(quiet).toContain('No gate was set');
  });

  it('puts the failures first and lists every check once', () => {
    const failures = html.indexOf('id="failures"');
    expect(failures).toBeGreaterThan(0);
    for (const later of ['id="surfaces"', 'id="gates"', 'id="cleanup"', 'id="checks"'])
      expect(html.indexOf(later)).toBeGreaterThan(failures);
    const failed = report.checks.filter((c) => c.status === 'failed');
    const section = text.slice(text.indexOf('id="failures"'), text.indexOf('id="surfaces"'));
    expect(section.match(/<article class="failure"/g)).toHaveLength(failed.length);
    for (const c of failed) expect(section).toContain(`<code>${c.id}</code>`);
    expect(section).toContain('Shrunk by fast-check to this minimal case.');
    expect(section).toContain('&quot;id&quot;: &quot;tr_2&quot;');
    for (const c of report.checks.filter((c) => c.status === 'passed')) expect(section).not.toContain(c.id);
    const rows = [...html.matchAll(/<tr data-status="(\w+)" data-surfaces="[^"]*" data-id="([^"]+)"/g)];
    expect(rows.map((r) => [r[2], r[1]])).toEqual(report.checks.map((c) => [c.id, c.status]));
  });

  it('shows the gates and, first in the cleanup, what could not be undone', () => {
    expect(html).toContain('<span class="badge failed">failed</span> <code>--min-score</code>');
    expect(html).toContain('<span class="badge ok">ok</span> <code>--min-coverage</code>');
    const cleanup = html.slice(html.indexOf('id="cleanup"'), html.indexOf('id="checks"'));
    expect(cleanup.indexOf('Could not be undone (2)')).toBeLessThan(cleanup.indexOf('Undone'));
    for (const line of report.cleanup?.failures ?? []) expect(cleanup).toContain(line);
    expect(cleanup).toContain('<li>5 API keys</li>');
  });
});

const hasChromium = existsSync(CHROMIUM);
const title = hasChromium
  ? 'the HTML report in headless Chromium'
  : `the HTML report in headless Chromium (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
// A skipped test is not a pass: say so in the log, not only in the verbose report.
if (!hasChromium) console.warn(`conformance report: ${title}`);

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  const problems: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svckit-report-html-'));
    const file = path.join(dir, 'conformance.html');
    writeFileSync(file, html);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) problems.push(`request: ${r.url()}`);
    });
    await page.goto(pathToFileURL(file).href);
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const visibleIds = () =>
    page.$$eval('#checks tbody tr', (rows) =>
      (rows as HTMLTableRowElement[]).filter((r) => !r.hidden).map((r) => r.dataset.id),
    );

  it('opens from disk with the failures section first and runs nothing the deployment wrote', async () => {
    const order = await page.$$eval('main > section', (sections) => sections.map((s) => s.id));
    expect(order).toEqual(['failures', 'surfaces', 'gates', 'cleanup', 'checks']);
    const pwned = await page.evaluate(() => Object.keys(window).filter((k) => k.startsWith('__pwned')));
    expect(pwned).toEqual([]);
    expect(await page.locator('#failure-3').textContent()).toContain(HOSTILE.message);
    expect(await page.locator('#failure-3 details pre.response').first().textContent()).toContain(HOSTILE.body);
    expect(await page.locator('#failure-3 details').first().getAttribute('open')).toBeNull();
    // Each failure's replay commands (its kept cases' first), as they would be copied.
    const commands = await page.$$eval('#failures .cmd code', (codes) => codes.map((c) => c.textContent));
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(commands).toEqual(failed.flatMap((c) => [...(c.failures ?? []).map((f) => f.replay), c.replay]));
  });

  it('filters the checks by verdict, by check id text and by surface', async () => {
    expect(await visibleIds()).toHaveLength(report.checks.length);
    await page.selectOption('#f-verdict', 'failed');
    const failed = report.checks.filter((c) => c.status === 'failed').map((c) => c.id);
    expect(await visibleIds()).toEqual(failed);
    expect(await page.textContent('#shown')).toBe(`Showing 3 of ${report.checks.length} checks.`);
    await page.selectOption('#f-verdict', '');
    await page.fill('#f-id', 'explorer.TX.schema');
    expect(await visibleIds()).toEqual(['explorer.tx.schema']);
    await page.fill('#f-id', 'no.such.check');
    expect(await visibleIds()).toEqual([]);
    expect(await page.isVisible('#no-match')).toBe(true);
    await page.fill('#f-id', '');
    await page.selectOption('#f-surface', 'chain');
    const chain = report.checks.filter((c) => checkSurfaces(c).includes('chain')).map((c) => c.id);
    expect(chain).toEqual([
      'chain.eth_chainid.value',
      'chain.net_version',
      'chain.qbft.votes',
      'generated.jsonrpc_error_codes',
    ]);
    expect(await visibleIds()).toEqual(chain);
    await page.selectOption('#f-verdict', 'skipped');
    expect(await visibleIds()).toEqual(['chain.qbft.votes']);
    await page.click('button[type="reset"]');
    await expect.poll(visibleIds).toHaveLength(report.checks.length);
  });

  it('labels every filter, shows keyboard focus and copies a replay command', async () => {
    const labels = await page.$$eval('#filters select, #filters input', (fields) =>
      fields.map((f) => (f as HTMLInputElement).labels?.[0]?.textContent ?? ''),
    );
    expect(labels).toEqual(['Verdict', 'Surface', 'Check id contains']);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { tag: el.tagName, outline: getComputedStyle(el).outlineStyle };
    });
    expect(focused).toEqual({ tag: 'A', outline: 'solid' });
    const copy = page.locator('#failure-1 button.copy').first();
    await copy.click();
    await expect.poll(() => copy.textContent()).toMatch(/^(Copied|Selected)$/);
  });

  it('does not scroll sideways at 390 px, even with every case unfolded, and is photographed at 1280 and 390 px', async () => {
    mkdirSync(SHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // As a reader finds it, with the shrunk case unfolded to show how a case reads.
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = false;
        const shrunk = document.querySelector<HTMLDetailsElement>('#failure-3 .case details');
        if (shrunk) shrunk.open = true;
      });
      const file = path.join(SHOTS, `conformance-report-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`conformance report screenshot: ${file}`);
      expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(width);
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
      });
      expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(width);
    }
    expect(problems).toEqual([]);
  });
});
