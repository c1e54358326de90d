// The extension as a wallet in headless Chromium against the in-process reference stack (real TLS gateway,
// Anvil, wallet service): a dApp page sends a gas-price-0 transaction that mines after approval, and a
// rejected one moves nothing, nor does one asked while the wallet is locked (4100, D-177); typed data,
// eth_signTransaction and personal_sign recover to the account; a custom network is added and switched to
// (chainChanged), an unknown one is 4902; malformed params are -32602 and unsupported methods 4200; the
// dual-signature session is issued after approval and its token verifies against the service's JWKS. Each
// approval window kind is screenshotted at 360 and 1280 px.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseTransaction, recoverMessageAddress, recoverTransactionAddress, verifyTypedData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/wallet/client/index.ts';
import { verifySessionToken } from '../../src/client/wallet/session.ts';
import { CHROMIUM } from '../chromium.ts';
import {
  ACCOUNT,
  call,
  PASSWORD,
  SCREENSHOTS,
  startExtensionHarness,
  withApproval,
  type ExtensionHarness,
} from './extension-browser.ts';
import { tlsFetch } from './support.ts';

const hasChromium = existsSync(CHROMIUM);
const suite = hasChromium ? describe : describe.skip;
const title = hasChromium
  ? 'extension wallet in headless Chromium'
  : `extension wallet in headless Chromium (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
if (!hasChromium) console.warn(`wallet-client: ${title}`);

const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const CUSTOM_CHAIN = 31_337_777; // 0x1de2d31
const CUSTOM_HEX = `0x${CUSTOM_CHAIN.toString(16)}`;

let h: ExtensionHarness;
/** A third-party EVM endpoint (outside the project): answers eth_chainId and eth_blockNumber. */
let customChain: http.Server;
let customUrl: string;

suite(title, () => {
  beforeAll(async () => {
    customChain = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const result = method === 'eth_chainId' ? CUSTOM_HEX : method === 'eth_blockNumber' ? '0x2a' : undefined;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify(
              result === undefined
                ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'not here' } }
                : { jsonrpc: '2.0', id, result },
            ),
          );
      });
    });
    await new Promise<void>((resolve) => customChain.listen(0, '127.0.0.1', resolve));
    customUrl = `http://127.0.0.1:${(customChain.address() as AddressInfo).port}/`;
    h = await startExtensionHarness();
    // The operator funds (and so allow-lists, D-152) the wallet's account on the native chain.
    const funded = await tlsFetch(h.target.caCert!)(new URL('admin/v1/chain/accounts', h.target.base).href, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.target.adminToken}` },
      body: JSON.stringify({ address: ACCOUNT, amount: '100' }),
    });
    expect(funded.status, await funded.clone().text()).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => (customChain ? customChain.close(resolve) : resolve(undefined)));
  });

  it('connects through the approval window (labelled, title focused first)', async () => {
    const page = await h.dapp();
    const accounts = await withApproval(h, () => call(page, 'eth_requestAccounts'), {
      approve: true,
      screenshot: 'connect',
      inspect: async (approval) => {
        expect(await approval.textContent('#title')).toBe('Connect to this site?');
        expect(await approval.textContent('#facts')).toContain(ACCOUNT);
        expect(await approval.isHidden('#password-field')).toBe(true);
        // The screenshot step pressed Tab once from the focused title: the first control is Reject.
        expect(await approval.evaluate(() => document.activeElement?.id)).toBe('reject');
      },
    });
    expect(accounts).toEqual([ACCOUNT]);
    await page.close();
  }, 60_000);

  it('sends a gas-price-0 transaction after approval: it mines, the recipient and the fee collector are paid', async () => {
    const page = await h.dapp();
    const fees = (await (await tlsFetch(h.target.caCert!)(new URL('fees/config', h.target.wallet).href)).json()) as {
      feeBps: number;
      collectors: Array<{ chainId: string; address: string }>;
    };
    const collector = fees.collectors.find((c) => c.chainId === '1111111')!.address;
    const balance = async (a: string) => BigInt((await h.direct('eth_getBalance', [a, 'latest'])) as string);
    const before = {
      nonce: BigInt((await h.direct('eth_getTransactionCount', [ACCOUNT, 'latest'])) as string),
      recipient: await balance(RECIPIENT),
      collector: await balance(collector),
    };
    const value = 10n ** 18n;
    const hash = await withApproval(
      h,
      () => call(page, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: `0x${value.toString(16)}` }]),
      {
        approve: true,
        password: PASSWORD,
        screenshot: 'send',
        inspect: async (approval) => {
          expect(await approval.textContent('#title')).toBe('Send this transaction?');
          const facts = (await approval.textContent('#facts')) ?? '';
          expect(facts).toContain(RECIPIENT);
          expect(facts).toContain('1 SVC'); // the amount
          expect(facts).toContain('0.0025 SVC (25 bp to 0x'); // the platform fee of GET /fees/config
          expect(facts).toContain('svckit native settlement network (1111111)');
          expect(facts).toMatch(/Gas\d+ at 0 wei/); // gas price 0 on the native chain
          // Focus order: title, then (Tab) the labelled password field, Reject, Approve.
          const focused = () => approval.evaluate(() => document.activeElement?.id);
          expect(await focused()).toBe('password');
          expect(await approval.getByLabel('Wallet password').count()).toBe(1);
          await approval.keyboard.press('Tab');
          expect(await focused()).toBe('reject');
          await approval.keyboard.press('Tab');
          expect(await focused()).toBe('approve');
        },
      },
    );
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await waitForReceipt(page, hash as string);
    expect(receipt.status).toBe('0x1');
    expect(BigInt(receipt.effectiveGasPrice)).toBe(0n);
    expect(BigInt((await h.direct('eth_getBalance', [RECIPIENT, 'latest'])) as string) - before.recipient).toBe(value);
    // The dApp's transaction at nonce n and the platform fee at n + 1 (D-123).
    await expect
      .poll(async () => BigInt((await h.direct('eth_getTransactionCount', [ACCOUNT, 'latest'])) as string), {
        timeout: 15_000,
      })
      .toBe(before.nonce + 2n);
    expect(fees.feeBps).toBe(25);
    expect((await balance(collector)) - before.collector).toBe((value * 25n + 9_999n) / 10_000n); // D-123
    await page.close();
  }, 90_000);

  it('a rejected send is 4001 and moves nothing', async () => {
    const page = await h.dapp();
    const nonce = await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending']);
    const balance = await h.direct('eth_getBalance', [ACCOUNT, 'latest']);
    const answer = await withApproval(
      h,
      () => call(page, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }]),
      { approve: false },
    );
    expect(answer).toMatchObject({ code: 4001 });
    expect(await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending'])).toBe(nonce);
    expect(await h.direct('eth_getBalance', [ACCOUNT, 'latest'])).toBe(balance);
    await page.close();
  }, 60_000);

  it('a locked wallet refuses eth_sendTransaction with 4100, opens no window and moves nothing (D-177)', async () => {
    const page = await h.dapp();
    const view = await h.context.newPage();
    await view.goto(`chrome-extension://${h.extensionId}/wallet.html`);
    await view.waitForSelector('#unlocked:not([hidden])'); // the options page's save unlocked it
    await view.click('#lock');
    await view.waitForSelector('#locked:not([hidden])');
    const nonce = await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending']);
    const pagesBefore = h.context.pages().length;
    expect(await call(page, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }])).toEqual({
      code: 4100,
      message: 'the svckit wallet is locked: unlock it in the extension (toolbar button) first',
    });
    expect(h.context.pages().length).toBe(pagesBefore); // no approval window was opened
    expect(await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending'])).toBe(nonce);
    // Unlocking in the view, as a user does, lets the later cases sign again.
    await view.fill('#unlock-password', PASSWORD);
    await view.click('#unlock');
    await view.waitForSelector('#unlocked:not([hidden])', { timeout: 60_000 });
    await view.close();
    await page.close();
  }, 90_000);

  it('signs personal_sign and EIP-712 typed data that recover to the account', async () => {
    const page = await h.dapp();
    const message = 'Sign in to the dApp\nnonce 42';
    const personal = await withApproval(h, () => call(page, 'personal_sign', [message, ACCOUNT]), {
      approve: true,
      password: PASSWORD,
      screenshot: 'personal-sign',
      inspect: async (approval) => expect(await approval.textContent('#detail-text')).toBe(message),
    });
    expect(await recoverMessageAddress({ message, signature: personal as Hex })).toBe(ACCOUNT);

    const typedData = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'to', type: 'Person' },
          { name: 'contents', type: 'string' },
        ],
      },
      primaryType: 'Mail',
      domain: {
        name: 'Ether Mail',
        version: '1',
        chainId: 1111111,
        verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
      },
      message: {
        from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
        to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
        contents: 'Hello, Bob!',
      },
    } as const;
    const signature = await withApproval(
      h,
      () => call(page, 'eth_signTypedData_v4', [ACCOUNT, JSON.stringify(typedData)]),
      {
        approve: true,
        password: PASSWORD,
        screenshot: 'typed-data',
        inspect: async (approval) => {
          const facts = (await approval.textContent('#facts')) ?? '';
          expect(facts).toContain('Domain nameEther Mail');
          expect(facts).toContain('Domain contract0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC');
          expect(facts).toContain('Primary typeMail');
          expect(await approval.textContent('#detail-text')).toContain('"contents": "Hello, Bob!"');
        },
      },
    );
    expect(
      await verifyTypedData({ address: ACCOUNT, ...typedData, signature } as Parameters<typeof verifyTypedData>[0]),
    ).toBe(true);
    await page.close();
  }, 90_000);

  it('eth_signTransaction returns a signed transaction that parses and recovers to the account, unsent', async () => {
    const page = await h.dapp();
    const nonce = await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending']);
    const raw = await withApproval(
      h,
      () => call(page, 'eth_signTransaction', [{ from: ACCOUNT, to: RECIPIENT, data: '0x12345678' }]),
      { approve: true, password: PASSWORD, screenshot: 'sign-transaction' },
    );
    const parsed = parseTransaction(raw as Hex);
    expect(parsed).toMatchObject({ type: 'legacy', chainId: 1111111, to: RECIPIENT.toLowerCase(), data: '0x12345678' });
    expect(parsed.gasPrice ?? 0n).toBe(0n); // RLP encodes a zero gas price as the empty string
    expect(parsed.nonce).toBe(Number(nonce));
    expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(ACCOUNT);
    expect(await h.direct('eth_getTransactionCount', [ACCOUNT, 'pending'])).toBe(nonce); // not broadcast
    await page.close();
  }, 60_000);

  it('adds a custom network, switches to it with chainChanged, and answers 4902 for an unknown chain', async () => {
    const page = await h.dapp();
    await page.evaluate(() => (window as unknown as { listen(n: string): void }).listen('chainChanged'));
    expect(await call(page, 'wallet_switchEthereumChain', [{ chainId: CUSTOM_HEX }])).toMatchObject({ code: 4902 });
    const added = await withApproval(
      h,
      () =>
        call(page, 'wallet_addEthereumChain', [
          {
            chainId: CUSTOM_HEX,
            chainName: 'Test chain',
            nativeCurrency: { name: 'Test', symbol: 'TST', decimals: 18 },
            rpcUrls: [customUrl],
          },
        ]),
      {
        approve: true,
        screenshot: 'add-chain',
        inspect: async (approval) => {
          const facts = (await approval.textContent('#facts')) ?? '';
          expect(facts).toContain('Test chain');
          expect(facts).toContain(customUrl);
        },
      },
    );
    expect(added).toBeNull();
    expect(await call(page, 'wallet_switchEthereumChain', [{ chainId: CUSTOM_HEX }])).toBeNull();
    await page.waitForFunction(() => (window as unknown as { events: unknown[] }).events.length > 0);
    expect(await page.evaluate(() => (window as unknown as { events: unknown[] }).events)).toEqual([
      { name: 'chainChanged', value: CUSTOM_HEX },
    ]);
    expect(await call(page, 'eth_chainId')).toBe(CUSTOM_HEX);
    expect(await call(page, 'eth_blockNumber')).toBe('0x2a'); // read from the custom network's endpoint
    expect(await call(page, 'wallet_switchEthereumChain', [{ chainId: '0x7a69a' }])).toMatchObject({ code: 4902 });
    expect(await call(page, 'wallet_switchEthereumChain', [{ chainId: '0x10f447' }])).toBeNull();
    expect(await call(page, 'eth_chainId')).toBe('0x10f447');
    await page.close();
  }, 60_000);

  it('answers malformed params with -32602 and unsupported methods with 4200, asking nothing', async () => {
    const page = await h.dapp();
    const pagesBefore = h.context.pages().length;
    const bad: Array<[string, unknown]> = [
      ['eth_sendTransaction', [{}]],
      ['eth_sendTransaction', [{ from: ACCOUNT, to: 'nope' }]],
      ['eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '12' }]],
      ['eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, extra: 1 }]],
      ['eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, data: `0x${'00'.repeat(128 * 1024 + 1)}` }]],
      ['eth_signTransaction', 'not params'],
      ['eth_signTypedData_v4', [ACCOUNT, '{not json']],
      ['eth_signTypedData_v4', [ACCOUNT, { types: {}, primaryType: 'X', message: {} }]],
      ['personal_sign', ['hi']],
      ['wallet_switchEthereumChain', [{ chainId: '1' }]],
      ['wallet_addEthereumChain', [{ chainId: '0x5', chainName: 'x', rpcUrls: ['ftp://x'] }]],
      ['svckit_requestSession', [{ walletApi: 'https://evil.test' }]],
    ];
    for (const [method, params] of bad)
      expect(await call(page, method, params), `${method} ${JSON.stringify(params).slice(0, 80)}`).toMatchObject({
        code: -32602,
      });
    for (const method of ['eth_sign', 'eth_sendRawTransaction', 'wallet_requestSnaps', 'debug_traceTransaction'])
      expect(await call(page, method, [])).toMatchObject({ code: 4200 });
    expect(h.context.pages().length).toBe(pagesBefore); // no approval window opened
    await page.close();
  }, 60_000);

  it('keeps at most four approval windows per site (-32005); closing a window rejects its request (4001)', async () => {
    const page = await h.dapp();
    const windows: import('playwright-core').Page[] = [];
    const onPage = (p: import('playwright-core').Page) => {
      if (p.url().includes('/approve.html')) windows.push(p);
    };
    h.context.on('page', onPage);
    const answers = page.evaluate((ACCOUNT) => {
      const w = window as unknown as { call(m: string, p: unknown): Promise<unknown> };
      return Promise.all([1, 2, 3, 4, 5].map((i) => w.call('personal_sign', [`request ${i}`, ACCOUNT])));
    }, ACCOUNT);
    await expect.poll(() => windows.length, { timeout: 20_000 }).toBe(4);
    for (const w of windows) await w.close();
    h.context.off('page', onPage);
    const codes = ((await answers) as Array<{ code: number }>).map((a) => a.code).sort();
    expect(codes).toEqual([-32005, 4001, 4001, 4001, 4001]);
    await page.close();
  }, 60_000);

  it('svckit_requestSession logs in with both signatures after approval; the token verifies with the JWKS', async () => {
    const page = await h.dapp();
    const session = (await withApproval(h, () => call(page, 'svckit_requestSession'), {
      approve: true,
      password: PASSWORD,
      screenshot: 'session',
      inspect: async (approval) => expect(await approval.textContent('#facts')).toContain(h.target.wallet!.origin),
    })) as { token: string; svcId: string; address: string; nonce: string; walletApi: string };
    expect(session).toMatchObject({ svcId: '780b9aefce695a5f', address: ACCOUNT, walletApi: h.target.wallet!.origin });
    const client = createClient({ baseUrl: h.target.wallet!.origin, fetch: tlsFetch(h.target.caCert!) });
    const claims = await verifySessionToken(client, session.token, {
      svcId: session.svcId,
      address: ACCOUNT,
      nonce: session.nonce,
    });
    expect(claims.sub).toBe('780b9aefce695a5f');
    expect(await withApproval(h, () => call(page, 'svckit_requestSession', []), { approve: false })).toMatchObject({
      code: 4001,
    });
    await page.close();
  }, 90_000);

  it('wrote a screenshot of each approval window kind at 360 and 1280 px', () => {
    for (const kind of ['connect', 'personal-sign', 'send', 'typed-data', 'sign-transaction', 'add-chain', 'session'])
      for (const width of [360, 1280]) {
        const png = readFileSync(path.join(SCREENSHOTS, `${kind}-${width}.png`));
        expect(png.readUInt32BE(16), `${kind}-${width}`).toBe(width); // IHDR width
      }
  });
});

/** Polls the provider for a receipt every 50 ms, for at most 15 s. */
async function waitForReceipt(
  page: import('playwright-core').Page,
  hash: string,
): Promise<{ status: string; effectiveGasPrice: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const receipt = (await call(page, 'eth_getTransactionReceipt', [hash])) as {
      status: string;
      effectiveGasPrice: string;
    } | null;
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
