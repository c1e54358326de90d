// The extension's wallet view (wallet.html, D-177) in headless Debian Chromium against the in-process
// reference stack over its real TLS: the native account's balance is the one the gateway reports after
// funding it, the activity is the wallet session API's /history, an unconfigured or unreachable source is
// said to be so, lock hides addresses and balances and makes the service worker refuse signing, a wrong
// password is refused, Tab walks the controls in order, nothing scrolls sideways at 360 px. Screenshots
// at 360 and 1280 px go to test/docs/screenshots/extension/ (gitignored) for a person to look at.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { recoverMessageAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/wallet/client/index.ts';
import * as sdk from '../../generated/wallet/sdk.gen.ts';
import { minedTransaction } from '../../conformance/checks/explorer/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { buildExtension } from '../../scripts/build-extension.ts';
import { formatUnits } from '../../src/client/wallet/balances.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { CHROMIUM, CHROMIUM_FLAGS, spkiHash } from '../chromium.ts';
import { TEST_MNEMONIC, tlsFetch } from './support.ts';

const hasChromium = existsSync(CHROMIUM);
const suite = hasChromium ? describe : describe.skip;
const title = hasChromium
  ? 'extension wallet view in headless Chromium'
  : `extension wallet view in headless Chromium (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
// A skipped test is not a pass: say so in the log, not only in the verbose report.
if (!hasChromium) console.warn(`wallet-client: ${title}`);

const PASSWORD = 'correct horse battery';
const ACCOUNT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
/** The test mnemonic's Bitcoin (BIP-84) and Tron (BIP-44 coin 195) addresses at index 0. */
const wallet = Wallet.fromMnemonic(TEST_MNEMONIC);
const BTC = wallet.address('bitcoin');
const TRX = wallet.address('tron');
/** A port nothing listens on: the Ethereum source that does not answer. */
const DEAD_ETHEREUM = 'http://127.0.0.1:9/';
const SHOTS = path.join(REPO_ROOT, 'test/docs/screenshots/extension');

/** A dApp page that picks the svckit provider out of the EIP-6963 announcements. */
const DAPP = `<!doctype html><html><head><meta charset="utf-8"><title>dApp</title><script>
window.announced = [];
window.addEventListener('eip6963:announceProvider', (e) => window.announced.push(e.detail));
window.dispatchEvent(new Event('eip6963:requestProvider'));
window.svckit = () => window.announced.find((d) => d.info.rdns === 'dev.svckit.wallet')?.provider;
</script></head><body><h1>dApp</h1></body></html>`;

let target: Target;
let context: BrowserContext;
let dapp: http.Server;
let dappUrl: string;
let extensionId: string;
let gateway: string;
const cleanup: string[] = [];
const funded: string[] = [];

/** eth_getBalance of the account, straight from the gateway. */
async function gatewayBalance(address: string): Promise<bigint> {
  const response = await tlsFetch(target.caCert!)(gateway, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

/** The tx hashes /history lists for the account, read by the Node library with its own session. */
async function historyHashes(): Promise<string[]> {
  const client = createClient({ baseUrl: target.wallet!.origin, fetch: tlsFetch(target.caCert!) });
  const session = await wallet.login(client);
  const authorized = createClient({ ...client.getConfig(), auth: () => session.token });
  const answer = await sdk.walletGetHistory({
    client: authorized,
    query: { chainId: '1111111', address: ACCOUNT },
  });
  return answer.data!.items.map((i) => i.txHash);
}

/** The ids of the elements Tab reaches from the top of the page, in order, until focus leaves the page. */
async function tabOrder(page: Page): Promise<string[]> {
  // Clicking the heading moves the sequential focus starting point to the top of the page.
  await page.click('h1');
  const order: string[] = [];
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() =>
      document.activeElement && document.activeElement !== document.body ? document.activeElement.id || '?' : '',
    );
    if (!id || order.includes(id)) break;
    order.push(id);
  }
  return order;
}

/**
 * Clicks Approve in an approval window. The window closes itself on the click, which can race the end of
 * Playwright's click action, so the click is dispatched from inside the page and the close awaited.
 */
async function approve(window: Page): Promise<void> {
  const closed = window.waitForEvent('close');
  await window.evaluate(() => setTimeout(() => document.getElementById('approve')?.click(), 0));
  await closed;
}

/** Document wider than the viewport (sideways scrolling) at the page's current size. */
const overflow = (page: Page) =>
  page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, viewport: window.innerWidth }));

/** Full-page screenshots of `page` at 360 and 1280 px wide, named `<name>-<width>.png`. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 720 });
    const size = await overflow(page);
    expect(size.scrollWidth, `${name} at ${width} px`).toBeLessThanOrEqual(size.viewport);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
}

suite(title, () => {
  beforeAll(async () => {
    const extDir = mkdtempSync(path.join(tmpdir(), 'svckit-ext-'));
    const profile = mkdtempSync(path.join(tmpdir(), 'svckit-chromium-'));
    cleanup.push(extDir, profile);
    mkdirSync(SHOTS, { recursive: true });
    await buildExtension(extDir);
    target = await referenceTarget();
    gateway = new URL('rpc', target.base).href;
    dapp = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DAPP),
    );
    await new Promise<void>((resolve) => dapp.listen(0, '127.0.0.1', resolve));
    dappUrl = `http://127.0.0.1:${(dapp.address() as AddressInfo).port}/`;
    // Trust exactly the stack's servers (gateway and wallet API) by their keys.
    const keys = new Set([
      await spkiHash(target.base!, target.caCert!),
      await spkiHash(target.wallet!, target.caCert!),
    ]);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: false, // the new headless mode is asked for below: extensions need it
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [
        '--headless=new',
        ...CHROMIUM_FLAGS,
        `--ignore-certificate-errors-spki-list=${[...keys].join(',')}`,
        `--disable-extensions-except=${extDir}`,
        `--load-extension=${extDir}`,
      ],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 20_000 }));
    extensionId = new URL(worker.url()).host;
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await new Promise((resolve) => (dapp ? dapp.close(resolve) : resolve(undefined)));
    await target?.close?.();
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  const viewUrl = () => `chrome-extension://${extensionId}/wallet.html`;

  it('is set up on the options page with the view sources; the page fits 360 px', async () => {
    const page = await context.newPage();
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    await page.fill('#wallet-api-url', target.wallet!.origin);
    await page.fill('#ethereum-url', DEAD_ETHEREUM);
    await page.click('#save-sources');
    await expect.poll(() => page.textContent('#sources-status')).toBe('Sources saved.');
    await page.fill('#bitcoin-url', 'ftp://example.test/');
    await page.click('#save-sources');
    await expect.poll(() => page.textContent('#sources-status')).toBe('bitcoin: expected http: or https:, got ftp:');
    await page.fill('#bitcoin-url', '');
    await page.click('#save-sources');
    await expect.poll(() => page.textContent('#sources-status')).toBe('Sources saved.');

    await page.fill('#mnemonic', TEST_MNEMONIC);
    await page.fill('#password', PASSWORD);
    await page.fill('#gateway-url', gateway);
    await page.click('#save');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Saved'), undefined, {
      timeout: 90_000,
    });
    expect(await page.textContent('#account')).toBe(ACCOUNT);
    await screenshots(page, 'options');
    await page.close();
    // Fund the native account through the reference stack (a transfer from a genesis account).
    funded.push(await minedTransaction(target, { to: ACCOUNT, value: 1_500_000_000_000_000_000n }));
  }, 150_000);

  it('shows each chain account with the balance its source reports, and the activity from /history', async () => {
    const page = await context.newPage();
    await page.goto(viewUrl());
    await page.waitForSelector('#unlocked:not([hidden])');
    expect(await page.textContent('#lock-state')).toBe('Unlocked');
    const native = page.locator('[data-chain="1111111"]');
    await expect
      .poll(() => native.locator('.balance').getAttribute('data-status'), { timeout: 20_000 })
      .not.toBe('loading');
    const reported = await gatewayBalance(ACCOUNT);
    expect(reported).toBeGreaterThanOrEqual(1_500_000_000_000_000_000n);
    expect(await native.locator('.balance').textContent()).toBe(`${formatUnits(reported, 18)} SVC`);
    expect(await native.locator('.address').textContent()).toBe(ACCOUNT);
    expect(await page.textContent('[data-chain="bitcoin"] .address')).toBe(BTC);
    expect(await page.textContent('[data-chain="tron"] .address')).toBe(TRX);
    expect(await page.textContent('[data-chain="1"] .address')).toBe(ACCOUNT);

    // No endpoint, or one that does not answer: said so, and no number is shown.
    const unavailable = async (chain: string) => {
      const balance = page.locator(`[data-chain="${chain}"] .balance`);
      await expect.poll(() => balance.getAttribute('data-status'), { timeout: 20_000 }).toBe('unavailable');
      return (await balance.textContent()) ?? '';
    };
    expect(await unavailable('bitcoin')).toBe('Balance unavailable: no Bitcoin endpoint is configured');
    expect(await unavailable('tron')).toBe('Balance unavailable: no Tron endpoint is configured');
    expect(await unavailable('1')).toMatch(/^Balance unavailable: http:\/\/127\.0\.0\.1:9 is unreachable: /);

    // The feed lists the funding transfer, as received.
    const entry = page.locator(`#history li[data-tx="${funded[0]}"]`);
    await entry.waitFor({ timeout: 20_000 });
    expect(await entry.locator('strong').textContent()).toBe('Received 1.5 SVC');

    // After an activity, Refresh shows it, and the list is /history's, in its order.
    funded.push(await minedTransaction(target, { to: ACCOUNT, value: 250_000_000_000_000_000n }));
    await page.click('#refresh');
    await page.locator(`#history li[data-tx="${funded[1]}"]`).waitFor({ timeout: 20_000 });
    await expect
      .poll(() => native.locator('.balance').textContent(), { timeout: 20_000 })
      .toBe(`${formatUnits(await gatewayBalance(ACCOUNT), 18)} SVC`);
    const shown = await page.locator('#history li').evaluateAll((items) => items.map((i) => i.getAttribute('data-tx')));
    expect(shown).toEqual((await historyHashes()).slice(0, 20));
    expect(shown.slice(0, 2)).toEqual([funded[1], funded[0]]);
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Updated'));
    await screenshots(page, 'view-unlocked-history');
    await page.close();
  }, 120_000);

  it('Tab reaches every control in order, with a visible focus ring', async () => {
    const page = await context.newPage();
    await page.goto(viewUrl());
    await page.waitForSelector('#unlocked:not([hidden])');
    expect(await tabOrder(page)).toEqual(['refresh', 'lock', 'settings']);
    await page.focus('#lock');
    const ring = await page.evaluate(() => getComputedStyle(document.getElementById('lock')!).outlineStyle);
    expect(ring).toBe('solid');
    await page.click('#lock');
    await page.waitForSelector('#locked:not([hidden])');
    expect(await tabOrder(page)).toEqual(['unlock-password', 'unlock', 'settings']);
    await page.close();
  }, 60_000);

  it('locked: hides addresses and balances, signing is refused, a wrong password is refused clearly', async () => {
    const page = await context.newPage();
    await page.goto(viewUrl());
    await page.waitForSelector('#locked:not([hidden])');
    expect(await page.textContent('#lock-state')).toBe('Locked');
    const text = (await page.textContent('body')) ?? '';
    for (const secretless of [ACCOUNT, BTC, TRX, 'SVC', 'Received']) expect(text).not.toContain(secretless);
    expect(await page.locator('#accounts li').count()).toBe(0);
    await screenshots(page, 'view-locked');

    // A dApp may still connect, but a signature is refused before any approval window opens.
    const dappPage = await context.newPage();
    await dappPage.goto(dappUrl);
    await dappPage.waitForFunction(() => (window as unknown as { svckit: () => unknown }).svckit() !== undefined);
    type W = { svckit: () => { request(a: { method: string; params?: unknown[] }): Promise<unknown> } };
    const rpc = (method: string, params?: unknown[]) =>
      dappPage.evaluate(
        ([m, p]) =>
          (window as unknown as W)
            .svckit()
            .request({ method: m as string, ...(p ? { params: p as unknown[] } : {}) })
            .catch((e: { code: number; message: string }) => ({ code: e.code, message: e.message })),
        [method, params] as const,
      );
    const approval = context.waitForEvent('page', { predicate: (p) => p.url().includes('/approve.html') });
    const accounts = rpc('eth_requestAccounts');
    const connect = await approval;
    await connect.waitForSelector('#origin:not(:empty)');
    await approve(connect);
    expect(await accounts).toEqual([ACCOUNT]);
    const before = context.pages().length;
    expect(await rpc('personal_sign', ['hello', ACCOUNT])).toEqual({
      code: 4100,
      message: 'the svckit wallet is locked: unlock it in the extension (toolbar button) first',
    });
    expect(context.pages().length).toBe(before); // no approval window was opened

    // A wrong password: a clear message, the view stays locked.
    await page.fill('#unlock-password', 'not the password');
    await page.click('#unlock');
    await expect
      .poll(() => page.textContent('#unlock-error'), { timeout: 60_000 })
      .toBe('Wrong password: the wallet stays locked.');
    expect(await page.getAttribute('#unlock-password', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#lock-state')).toBe('Locked');
    expect(await page.locator('#accounts li').count()).toBe(0);
    await screenshots(page, 'view-wrong-password');

    // The right one unlocks; signing works again (with the approval and its password).
    await page.fill('#unlock-password', PASSWORD);
    await page.click('#unlock');
    await page.waitForSelector('#unlocked:not([hidden])', { timeout: 60_000 });
    expect(await page.textContent('[data-chain="1111111"] .address')).toBe(ACCOUNT);
    const signWindow = context.waitForEvent('page', { predicate: (p) => p.url().includes('/approve.html') });
    const signature = rpc('personal_sign', ['hello', ACCOUNT]);
    const sign = await signWindow;
    await sign.waitForSelector('#origin:not(:empty)');
    await sign.fill('#password', PASSWORD);
    await approve(sign);
    expect(await recoverMessageAddress({ message: 'hello', signature: (await signature) as `0x${string}` })).toBe(
      ACCOUNT,
    );

    // An unlocked session past its time counts as locked: the view says so and signing is refused again.
    await page.evaluate(async () => {
      type Area = { get(k: string): Promise<Record<string, unknown>>; set(i: Record<string, unknown>): Promise<void> };
      const area = (globalThis as unknown as { chrome: { storage: { session: Area } } }).chrome.storage.session;
      const { viewUnlocked } = (await area.get('viewUnlocked')) as { viewUnlocked: { until: number } };
      await area.set({ viewUnlocked: { ...viewUnlocked, until: Date.now() - 1 } });
    });
    expect(await rpc('personal_sign', ['hello', ACCOUNT])).toMatchObject({ code: 4100 });
    await page.reload();
    await page.waitForSelector('#locked:not([hidden])');
    expect(await page.locator('#accounts li').count()).toBe(0);
    await dappPage.close();
    await page.close();
  }, 150_000);
});
