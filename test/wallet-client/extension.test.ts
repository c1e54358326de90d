// The Manifest V3 extension, built by scripts/build-extension.ts, loaded into headless Debian
// Chromium (--headless=new). A dApp page on 127.0.0.1 sees the provider through eip6963:announceProvider next
// to another wallet, reads the chain ID from the wallet, connects through the approval window and reads from
// the gateway of the in-process reference stack over its real TLS (the stack's leaf key is trusted through
// --ignore-certificate-errors-spki-list, so no mock stands in for the gateway). No network is used.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { recoverMessageAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { buildExtension } from '../../scripts/build-extension.ts';
import { CHROMIUM, CHROMIUM_FLAGS, trustServerFlag } from '../chromium.ts';
import { TEST_MNEMONIC, tlsFetch } from './support.ts';

const hasChromium = existsSync(CHROMIUM);
const suite = hasChromium ? describe : describe.skip;
const title = hasChromium
  ? 'extension in headless Chromium'
  : `extension in headless Chromium (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
// A skipped test is not a pass: say so in the log, not only in the verbose report.
if (!hasChromium) console.warn(`wallet-client: ${title}`);

/** The dApp: another EIP-6963 wallet that also claims window.ethereum, and a collector of announcements. */
const DAPP = `<!doctype html><html><head><meta charset="utf-8"><title>dApp</title><script>
window.announced = [];
window.events = [];
window.addEventListener('eip6963:announceProvider', (e) => window.announced.push(e.detail));
const other = { request: async ({ method }) => method === 'eth_chainId' ? '0x1' : [], on() {}, removeListener() {} };
const otherDetail = Object.freeze({ info: { uuid: '0b7e2c4a-5f1d-4c8e-9a3b-6d2f8e1c7a90', name: 'Other Wallet', icon: 'data:image/svg+xml;base64,PHN2Zy8+', rdns: 'org.example.other' }, provider: other });
window.addEventListener('eip6963:requestProvider', () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: otherDetail })));
window.ethereum = other;
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

suite(title, () => {
  beforeAll(async () => {
    const extDir = mkdtempSync(path.join(tmpdir(), 'svckit-ext-'));
    const profile = mkdtempSync(path.join(tmpdir(), 'svckit-chromium-'));
    cleanup.push(extDir, profile);
    await buildExtension(extDir);
    target = await referenceTarget();
    gateway = new URL('rpc', target.base).href;
    dapp = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DAPP),
    );
    await new Promise<void>((resolve) => dapp.listen(0, '127.0.0.1', resolve));
    dappUrl = `http://127.0.0.1:${(dapp.address() as AddressInfo).port}/`;
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: false, // the new headless mode is asked for below: extensions need it
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [
        '--headless=new',
        ...CHROMIUM_FLAGS,
        await trustServerFlag(target.base!, target.caCert!),
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

  /** Runs a page-side call and meanwhile approves (with `password` for a signature) the window it opens. */
  async function withApproval<T>(call: () => Promise<T>, password?: string): Promise<T> {
    const popup = context.waitForEvent('page', {
      predicate: (p) => p.url().includes('/approve.html'),
      timeout: 20_000,
    });
    const result = call();
    const approval = await popup;
    await approval.waitForSelector('#origin:not(:empty)');
    expect(await approval.textContent('#origin')).toBe(new URL(dappUrl).origin);
    if (password) await approval.fill('#password', password);
    await approval.click('#approve');
    return result;
  }

  it('is set up on its options page: the test mnemonic gives the published Ethereum account', async () => {
    const page = await context.newPage();
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    await page.fill('#mnemonic', TEST_MNEMONIC);
    await page.fill('#password', 'correct horse battery');
    await page.fill('#gateway-url', gateway);
    await page.click('#save');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Saved'), undefined, {
      timeout: 60_000,
    });
    expect(await page.textContent('#account')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(await page.textContent('#svcid')).toBe('780b9aefce695a5f'); // the same identity as the Node library
    await page.close();
  }, 90_000);

  it('a dApp on localhost sees it through eip6963:announceProvider alongside another wallet and reads the chain ID', async () => {
    const page = await context.newPage();
    await page.goto(dappUrl);
    await page.waitForFunction(() => (window as unknown as { svckit: () => unknown }).svckit() !== undefined);
    const seen = await page.evaluate(() => {
      const w = window as unknown as {
        announced: Array<{ info: { name: string; rdns: string; uuid: string; icon: string } }>;
        ethereum: unknown;
        svckit: () => { request(a: { method: string }): Promise<unknown> };
      };
      return { infos: w.announced.map((d) => d.info), ethereumIsOther: w.ethereum !== w.svckit() };
    });
    const names = [...new Set(seen.infos.map((i) => i.name))].sort();
    expect(names).toEqual(['Other Wallet', 'svckit wallet']);
    const ours = seen.infos.find((i) => i.rdns === 'dev.svckit.wallet')!;
    expect(ours.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ours.icon.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(seen.ethereumIsOther).toBe(true); // the other wallet kept window.ethereum: coexistence
    const chainId = await page.evaluate(() =>
      (window as unknown as { svckit: () => { request(a: { method: string }): Promise<unknown> } })
        .svckit()
        .request({ method: 'eth_chainId' }),
    );
    expect(chainId).toBe('0x10f447'); // 1111111, answered by the wallet
    await page.close();
  }, 60_000);

  it('connects through the approval window, then forwards reads to the gateway and refuses what it does not support', async () => {
    const page = await context.newPage();
    await page.goto(dappUrl);
    await page.waitForFunction(() => (window as unknown as { svckit: () => unknown }).svckit() !== undefined);
    type W = {
      svckit: () => {
        request(a: { method: string; params?: unknown[] }): Promise<unknown>;
        on(e: string, f: (v: unknown) => void): void;
      };
      events: unknown[];
    };
    const rpc = (method: string, params?: unknown[]) =>
      page.evaluate(
        ([m, p]) =>
          (window as unknown as W)
            .svckit()
            .request({ method: m as string, ...(p ? { params: p as unknown[] } : {}) })
            .catch((e: { code: number; message: string }) => ({ code: e.code, message: e.message })),
        [method, params] as const,
      );
    expect(await rpc('eth_accounts')).toEqual([]);
    await page.evaluate(() =>
      (window as unknown as W).svckit().on('accountsChanged', (a) => (window as unknown as W).events.push(a)),
    );
    const accounts = await withApproval(() => rpc('eth_requestAccounts'));
    expect(accounts).toEqual(['0x9858EfFD232B4033E47d90003D41EC34EcaEda94']);
    expect(await rpc('eth_accounts')).toEqual(['0x9858EfFD232B4033E47d90003D41EC34EcaEda94']);
    await page.waitForFunction(() => (window as unknown as W).events.length > 0);

    // Reads go to the reference stack's gateway: the answers equal a direct call to it.
    const direct = async (method: string, params: unknown[]) => {
      const response = await tlsFetch(target.caCert!)(gateway, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await response.json()) as { result: unknown }).result;
    };
    const genesis = (await rpc('eth_getBlockByNumber', ['0x0', false])) as { hash: string };
    expect(genesis.hash).toBe(((await direct('eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash);
    const height = BigInt((await rpc('eth_blockNumber')) as string);
    expect(height).toBe(BigInt((await direct('eth_blockNumber', [])) as string));
    expect(await rpc('eth_getBalance', ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'latest'])).toBe(
      await direct('eth_getBalance', ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'latest']),
    );
    expect(await rpc('eth_sign', [])).toMatchObject({ code: 4200 });
    expect(await rpc('wallet_switchEthereumChain', [{ chainId: '0x1' }])).toMatchObject({ code: 4902 });
    await page.close();
  }, 90_000);

  it('signs personal_sign only after approval with the keystore password (EIP-191)', async () => {
    const page = await context.newPage();
    await page.goto(dappUrl);
    await page.waitForFunction(() => (window as unknown as { svckit: () => unknown }).svckit() !== undefined);
    const message = 'Sign in to the dApp\nnonce 42';
    const signature = await withApproval(
      () =>
        page.evaluate(
          ([m]) =>
            (
              window as unknown as {
                svckit: () => { request(a: { method: string; params: unknown[] }): Promise<unknown> };
              }
            )
              .svckit()
              .request({ method: 'personal_sign', params: [m, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'] }),
          [message] as const,
        ),
      'correct horse battery',
    );
    expect(await recoverMessageAddress({ message, signature: signature as `0x${string}` })).toBe(
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    );
    await page.close();
  }, 90_000);
});
