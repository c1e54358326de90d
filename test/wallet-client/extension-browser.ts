// Headless Chromium with the built extension against the in-process reference stack, for the extension's
// browser tests: the stack (real TLS, Anvil, PGlite), a dApp page on 127.0.0.1, the wallet set up on its
// options page, and helpers that call the page's EIP-6963 provider and decide in the approval window.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { buildExtension } from '../../scripts/build-extension.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { CHROMIUM, CHROMIUM_FLAGS, spkiHash } from '../chromium.ts';
import { TEST_MNEMONIC, tlsFetch } from './support.ts';

/** The test mnemonic's first Ethereum account (m/44'/60'/0'/0/0). */
export const ACCOUNT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
/** The keystore password the tests set. */
export const PASSWORD = 'correct horse battery';
/** Where the approval screenshots go (gitignored). */
export const SCREENSHOTS = path.join(REPO_ROOT, 'test/docs/screenshots/extension');

/** A dApp that collects EIP-6963 announcements and the provider's events. */
const DAPP = `<!doctype html><html><head><meta charset="utf-8"><title>dApp</title><script>
window.announced = [];
window.events = [];
window.addEventListener('eip6963:announceProvider', (e) => window.announced.push(e.detail));
window.dispatchEvent(new Event('eip6963:requestProvider'));
window.svckit = () => window.announced.find((d) => d.info.rdns === 'dev.svckit.wallet')?.provider;
window.call = (method, params) => window.svckit().request(params === undefined ? { method } : { method, params })
  .catch((e) => ({ code: e.code, message: e.message }));
window.listen = (name) => window.svckit().on(name, (v) => window.events.push({ name, value: v && v.code ? { code: v.code } : v }));
</script></head><body><h1>dApp</h1></body></html>`;

/** The running browser, stack and dApp. */
export interface ExtensionHarness {
  target: Target;
  context: BrowserContext;
  worker: Worker;
  extensionId: string;
  dappUrl: string;
  gateway: string;
  /** A JSON-RPC call straight to the stack's gateway (not through the extension). */
  direct(method: string, params: unknown[]): Promise<unknown>;
  /** A new dApp page with the provider found. */
  dapp(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Starts everything and sets the wallet up on the options page as a user does: the stack's wallet session API
 * in the sources form, then the test mnemonic and password (saving unlocks the wallet, D-177).
 */
export async function startExtensionHarness(): Promise<ExtensionHarness> {
  const extDir = mkdtempSync(path.join(tmpdir(), 'svckit-ext-'));
  const profile = mkdtempSync(path.join(tmpdir(), 'svckit-chromium-'));
  await buildExtension(extDir);
  const target = await referenceTarget();
  const gateway = new URL('rpc', target.base).href;
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DAPP),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dappUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // The gateway and the wallet service are trusted by their keys, nothing else.
  const trusted = [await spkiHash(target.base!, target.caCert!), await spkiHash(target.wallet!, target.caCert!)];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: false, // the new headless mode is asked for below: extensions need it
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      '--headless=new',
      ...CHROMIUM_FLAGS,
      `--ignore-certificate-errors-spki-list=${[...new Set(trusted)].join(',')}`,
      `--disable-extensions-except=${extDir}`,
      `--load-extension=${extDir}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 20_000 }));
  const extensionId = new URL(worker.url()).host;

  const options = await context.newPage();
  await options.goto(`chrome-extension://${extensionId}/options.html`);
  // show() fills the form from storage first; what is typed before that would be overwritten.
  await options.waitForFunction(() => (document.getElementById('wallet-api-url') as HTMLInputElement).value !== '');
  await options.fill('#wallet-api-url', target.wallet!.origin);
  await options.click('#save-sources');
  await options.waitForFunction(() => document.getElementById('sources-status')?.textContent === 'Sources saved.');
  await options.fill('#mnemonic', TEST_MNEMONIC);
  await options.fill('#password', PASSWORD);
  await options.fill('#gateway-url', gateway);
  await options.click('#save');
  await options.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Saved'), undefined, {
    timeout: 90_000,
  });
  await options.close();

  const fetchTls = tlsFetch(target.caCert!);
  return {
    target,
    context,
    worker,
    extensionId,
    dappUrl,
    gateway,
    async direct(method, params) {
      const response = await fetchTls(gateway, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: unknown; error?: unknown };
      if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
      return body.result;
    },
    async dapp() {
      const page = await context.newPage();
      await page.goto(dappUrl);
      await page.waitForFunction(() => (window as unknown as { svckit: () => unknown }).svckit() !== undefined);
      return page;
    },
    async close() {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
      await target.close?.();
      rmSync(extDir, { recursive: true, force: true });
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Calls the provider on `page`; an error comes back as {code, message}. */
export function call(page: Page, method: string, params?: unknown): Promise<unknown> {
  return page.evaluate(
    ([m, p]) => (window as unknown as { call(m: string, p: unknown): Promise<unknown> }).call(m as string, p),
    [method, params] as const,
  );
}

/** How the approval window is answered. */
export interface Decision {
  approve: boolean;
  password?: string;
  /** Screenshot name: writes `<name>-360.png` and `<name>-1280.png` before deciding. */
  screenshot?: string;
  /** Called with the window before the decision (assertions on what it shows). */
  inspect?: (approval: Page) => Promise<void>;
}

/** Runs `action` and answers the approval window it opens. */
export async function withApproval<T>(
  harness: ExtensionHarness,
  action: () => Promise<T>,
  decision: Decision,
): Promise<T> {
  const popup = harness.context.waitForEvent('page', {
    predicate: (p) => p.url().includes('/approve.html'),
    timeout: 30_000,
  });
  const result = action();
  const approval = await popup;
  await approval.waitForSelector('#origin:not(:empty)');
  if (decision.screenshot) {
    await approval.keyboard.press('Tab'); // keyboard focus on the first control, so the screenshot shows it
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [360, 1280]) {
      // The viewport grows to the content's height, so nothing is cut off and no scrollbar narrows the page.
      await approval.setViewportSize({ width, height: 800 });
      const height = await approval.evaluate(() => document.documentElement.scrollHeight);
      await approval.setViewportSize({ width, height: Math.max(800, height) });
      await approval.screenshot({ path: path.join(SCREENSHOTS, `${decision.screenshot}-${width}.png`) });
    }
  }
  await decision.inspect?.(approval);
  if (decision.password) await approval.fill('#password', decision.password);
  await approval.click(decision.approve ? '#approve' : '#reject');
  return result;
}
