// The extension's parts that need no browser: the deterministic build and its manifest, the request router,
// the EIP-1193 provider, and the browser keystore and identity agreeing with the Node library. The signing
// methods are in extension-provider.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recoverMessageAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { buildExtension } from '../../scripts/build-extension.ts';
import { deriveIdentity } from '../../src/client/wallet/identity.ts';
import { openKeystore, sealKeystore } from '../../src/client/wallet/keystore.ts';
import { mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import { openKeystoreWeb, sealKeystoreWeb, svcIdOfSeed } from '../../src/client/wallet/browser.ts';
import { ProviderRpcError } from '../../extension/src/protocol.ts';
import { SvckitProvider } from '../../extension/src/provider.ts';
import { READ_METHODS, route, type ApprovalRequest, type RouterDeps } from '../../extension/src/router.ts';
import type { WalletState } from '../../extension/src/state.ts';
import { FAST_ARGON2, TEST_MNEMONIC } from './support.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('build (scripts/build-extension.ts)', () => {
  it('is deterministic and yields a Manifest V3 extension with a MAIN-world provider', async () => {
    const [a, b] = [mkdtempSync(path.join(tmpdir(), 'ext-a-')), mkdtempSync(path.join(tmpdir(), 'ext-b-'))];
    dirs.push(a, b);
    const first = await buildExtension(a);
    const second = await buildExtension(b);
    expect(second.treeSha256).toBe(first.treeSha256);
    expect(first.files.map((f) => f.path)).toEqual([
      'approve.css',
      'approve.html',
      'approve.js',
      'background.js',
      'content.js',
      'inpage.js',
      'manifest.json',
      'options.html',
      'options.js',
      'wallet.css',
      'wallet.html',
      'wallet.js',
    ]);
    const manifest = JSON.parse(readFileSync(path.join(a, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      manifest_version: 3,
      version: '1.0.0',
      background: { service_worker: 'background.js', type: 'module' },
      action: { default_popup: 'wallet.html' }, // the wallet view (D-177)
    });
    expect(manifest.content_scripts[0]).toMatchObject({ js: ['inpage.js'], world: 'MAIN', run_at: 'document_start' });
    for (const file of first.files.filter((f) => f.path.endsWith('.js'))) {
      const text = readFileSync(path.join(a, file.path), 'utf8');
      expect(text, file.path).not.toContain(process.cwd()); // no absolute paths
      expect(text, file.path).not.toMatch(/from ["']node:/); // no Node built-ins in browser bundles
    }
  });
});

function fakeDeps(overrides: Partial<RouterDeps> = {}, state?: WalletState) {
  const connected = new Set<string>();
  const approvals: ApprovalRequest[] = [];
  const emitted: unknown[] = [];
  const forwarded: unknown[] = [];
  let current = state;
  const deps: RouterDeps = {
    state: async () => current,
    connected: async () => [...connected],
    setConnected: async (o, c) => {
      if (c) connected.add(o);
      else connected.delete(o);
    },
    saveState: async (s) => {
      current = s;
    },
    approve: async (r) => {
      approvals.push(r);
      return { approved: true, password: 'pw' };
    },
    forward: async (url, method, params) => {
      forwarded.push({ url, method, params });
      return '0x2a';
    },
    withSeed: async (_state, password, use) => {
      if (password !== 'pw') throw new ProviderRpcError(4100, 'wrong password');
      return use(mnemonicToSeed(TEST_MNEMONIC));
    },
    walletApiUrl: async () => 'https://wallet.test/',
    walletApi: async () => ({ status: 200, body: { feeBps: 0, collectors: [], updatedAt: '2026-01-01T00:00:00Z' } }),
    emit: (event, data, origin) => void emitted.push({ event, data, origin }),
    ...overrides,
  };
  return { deps, approvals, emitted, forwarded, connected };
}

const STATE = {
  keystore: {} as WalletState['keystore'],
  accounts: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
  chainId: '1111111',
  rpcUrls: { '1111111': 'https://gw.test/chain', '1': 'https://eth.test' },
} satisfies WalletState;

describe('router', () => {
  it('answers eth_chainId from the wallet, even before setup, and never forwards it', async () => {
    const { deps, forwarded } = fakeDeps();
    expect(await route('http://a.test', 'eth_chainId', undefined, deps)).toBe('0x10f447');
    expect(forwarded).toEqual([]);
  });

  it('gives accounts only to connected origins, after approval', async () => {
    const { deps, approvals, emitted } = fakeDeps({}, STATE);
    expect(await route('http://a.test', 'eth_accounts', [], deps)).toEqual([]);
    expect(await route('http://a.test', 'eth_requestAccounts', [], deps)).toEqual(STATE.accounts);
    expect(approvals).toEqual([
      {
        kind: 'connect',
        origin: 'http://a.test',
        rows: [{ label: 'Account', value: STATE.accounts[0] }],
        password: false,
      },
    ]);
    expect(emitted).toEqual([{ event: 'accountsChanged', data: STATE.accounts, origin: 'http://a.test' }]);
    expect(await route('http://b.test', 'eth_accounts', [], deps)).toEqual([]);
    const rejecting = fakeDeps({ approve: async () => ({ approved: false }) }, STATE);
    await expect(route('http://a.test', 'eth_requestAccounts', [], rejecting.deps)).rejects.toMatchObject({
      code: 4001,
    });
    await expect(route('http://a.test', 'eth_requestAccounts', [], fakeDeps().deps)).rejects.toMatchObject({
      code: 4100,
    });
  });

  it("forwards reads to the selected chain's endpoint and refuses writes and unknown methods", async () => {
    const { deps, forwarded } = fakeDeps({}, STATE);
    expect(await route('http://a.test', 'eth_blockNumber', undefined, deps)).toBe('0x2a');
    expect(forwarded).toEqual([{ url: 'https://gw.test/chain', method: 'eth_blockNumber', params: [] }]);
    for (const m of [
      'eth_sendRawTransaction',
      'eth_sign',
      'admin_peers',
      'eth_signTypedData_v3',
      'wallet_requestSnaps',
    ]) {
      expect(READ_METHODS.has(m)).toBe(false);
      await expect(route('http://a.test', m, [], deps)).rejects.toMatchObject({ code: 4200 });
    }
    await expect(
      route('http://a.test', 'wallet_switchEthereumChain', [{ chainId: '0x1' }], deps),
    ).rejects.toMatchObject({ code: 4100 }); // only a connected origin may switch
    await route('http://a.test', 'eth_requestAccounts', [], deps);
    expect(await route('http://a.test', 'wallet_switchEthereumChain', [{ chainId: '0x1' }], deps)).toBeNull();
    expect(await route('http://a.test', 'eth_chainId', [], deps)).toBe('0x1');
    await expect(
      route('http://a.test', 'wallet_switchEthereumChain', [{ chainId: '0x89' }], deps),
    ).rejects.toMatchObject({ code: 4902 });
  });

  it('personal_sign needs a connected origin, one of its accounts and an approval', async () => {
    const { deps, connected } = fakeDeps({}, STATE);
    await expect(route('http://a.test', 'personal_sign', ['0x68690a', STATE.accounts[0]], deps)).rejects.toMatchObject({
      code: 4100,
    });
    connected.add('http://a.test');
    await expect(
      route('http://a.test', 'personal_sign', ['hi', '0x0000000000000000000000000000000000000001'], deps),
    ).rejects.toMatchObject({ code: 4100 });
    const signature = await route(
      'http://a.test',
      'personal_sign',
      ['0x68690a', STATE.accounts[0]!.toLowerCase()],
      deps,
    );
    expect(await recoverMessageAddress({ message: { raw: '0x68690a' }, signature: signature as `0x${string}` })).toBe(
      STATE.accounts[0],
    );
  });
});

describe('EIP-1193 provider', () => {
  it('relays requests, emits connect once and delivers events', async () => {
    const provider = new SvckitProvider({
      send: async (method) =>
        method === 'eth_chainId' ? '0x10f447' : Promise.reject(new ProviderRpcError(4200, 'no')),
    });
    const events: unknown[] = [];
    provider.on('connect', (info) => events.push(info));
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x10f447');
    await provider.request({ method: 'eth_chainId' });
    expect(events).toEqual([{ chainId: '0x10f447' }]);
    await expect(provider.request({ method: 'eth_sign' })).rejects.toMatchObject({ code: 4200 });
    const listener = (a: unknown) => events.push(a);
    provider.on('accountsChanged', listener);
    provider.emit('accountsChanged', ['0x1']);
    provider.removeListener('accountsChanged', listener);
    provider.emit('accountsChanged', ['0x2']);
    expect(events).toEqual([{ chainId: '0x10f447' }, ['0x1']]);
  });
});

describe('browser keystore and identity agree with the Node library', () => {
  it('a file sealed in the browser opens in Node and the other way round', async () => {
    const fromWeb = await sealKeystoreWeb('pw', new TextEncoder().encode('web'), { params: FAST_ARGON2, label: 'x' });
    expect(new TextDecoder().decode(await openKeystore('pw', fromWeb))).toBe('web');
    const fromNode = await sealKeystore('pw', new TextEncoder().encode('node'), { params: FAST_ARGON2 });
    expect(new TextDecoder().decode(await openKeystoreWeb('pw', fromNode))).toBe('node');
    await expect(openKeystoreWeb('nope', fromNode)).rejects.toMatchObject({ code: 'WRONG_PASSWORD_OR_TAMPERED' });
  });

  it('the browser svcId (noble ML-DSA-65) is the Node svcId (the crypto façade)', () => {
    const seed = mnemonicToSeed(TEST_MNEMONIC);
    expect(svcIdOfSeed(seed)).toBe(deriveIdentity(seed).svcId);
  });
});
