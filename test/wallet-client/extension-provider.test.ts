// The extension's signing and chain methods through the router, without a browser: what the approval window
// is shown, what is signed (real keys of the test mnemonic, checked with viem), the platform fee leg of
// D-123, the refusals (4001 with nothing signed or sent, -32602 for bad params, 4902), and the EIP-1193
// events. The chain endpoint and the wallet service are test doubles here; extension-wallet.test.ts runs
// the same methods against the reference stack in Chromium.
import { parseTransaction, recoverTransactionAddress, verifyTypedData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../extension/src/approval.ts';
import { ProviderRpcError } from '../../extension/src/protocol.ts';
import { route, type RouterDeps } from '../../extension/src/router.ts';
import type { WalletState } from '../../extension/src/state.ts';
import { mnemonicToSeed } from '../../src/client/wallet/browser.ts';
import { TEST_MNEMONIC } from './support.ts';

const ACCOUNT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
// Mixed case that is not EIP-55: a fee configuration's collector is signed for all the same.
const COLLECTOR = '0x00000000000000000000000000000000000FeE01';
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const ORIGIN = 'http://dapp.test';
const STATE: WalletState = {
  keystore: {} as WalletState['keystore'],
  accounts: [ACCOUNT],
  chainId: '1111111',
  rpcUrls: { '1111111': 'https://gw.test/rpc' },
};

/** A host with a fake chain endpoint (nonce 7, gas 21000, gas price 0) and a fee configuration. */
function host(options: { approve?: boolean; feeBps?: number; chainIdOf?: Record<string, string> } = {}) {
  let state: WalletState = structuredClone(STATE);
  const approvals: ApprovalRequest[] = [];
  const emitted: Array<{ event: string; data: unknown }> = [];
  const sent: Hex[] = [];
  const deps: RouterDeps = {
    state: async () => state,
    connected: async () => [ORIGIN],
    setConnected: async () => {},
    saveState: async (s) => {
      state = s;
    },
    approve: async (request) => {
      approvals.push(request);
      return options.approve === false ? { approved: false } : { approved: true, password: 'pw' };
    },
    forward: async (url, method, params) => {
      const p = params as unknown[];
      switch (method) {
        case 'eth_getTransactionCount':
          return '0x7';
        case 'eth_estimateGas':
          return '0x5208';
        case 'eth_gasPrice':
          return '0x0';
        case 'eth_chainId':
          return options.chainIdOf?.[url] ?? '0x10f447';
        case 'eth_sendRawTransaction':
          sent.push(p[0] as Hex);
          return `0x${String(sent.length).padStart(64, '0')}`;
        case 'eth_blockNumber':
          if (url.includes('down')) throw new ProviderRpcError(4901, 'unreachable');
          return '0x1';
      }
      throw new Error(`unexpected ${method}`);
    },
    withSeed: async (_s, password, use) => {
      if (password !== 'pw') throw new ProviderRpcError(4100, 'wrong password');
      return use(mnemonicToSeed(TEST_MNEMONIC));
    },
    walletApiUrl: async () => 'https://wallet.test/',
    walletApi: async (url) => {
      expect(url).toBe('https://wallet.test/fees/config');
      return {
        status: 200,
        body: {
          feeBps: options.feeBps ?? 25,
          collectors: [{ chainId: '1111111', address: COLLECTOR }],
          updatedAt: '2026-01-01T00:00:00Z',
        },
      };
    },
    emit: (event, data) => void emitted.push({ event, data }),
  };
  return { deps, approvals, emitted, sent, state: () => state };
}

const facts = (request: ApprovalRequest | undefined) =>
  Object.fromEntries((request?.rows ?? []).map((r) => [r.label, r.value]));

describe('eth_sendTransaction', () => {
  it('fills nonce, gas and gas price, shows recipient, amount, fee and chain, and sends the transfer then the fee', async () => {
    const { deps, approvals, sent } = host();
    const hash = await route(ORIGIN, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x2710' }], deps);
    expect(hash).toBe(`0x${'1'.padStart(64, '0')}`); // the dApp's transaction, broadcast first
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ kind: 'send', origin: ORIGIN, password: true });
    expect(facts(approvals[0])).toMatchObject({
      Network: 'svckit native settlement network (1111111)',
      To: RECIPIENT,
      Amount: '0.00000000000001 SVC',
      'Platform fee': `0.000000000000000025 SVC (25 bp to ${COLLECTOR})`, // ceil(10000 x 25 / 10000) = 25 wei
      Nonce: '7',
    });
    const [transfer, fee] = sent.map((raw) => parseTransaction(raw));
    expect(transfer).toMatchObject({
      type: 'legacy',
      chainId: 1111111,
      nonce: 7,
      to: RECIPIENT.toLowerCase(),
      value: 10_000n,
    });
    expect(fee).toMatchObject({ chainId: 1111111, nonce: 8, to: COLLECTOR.toLowerCase(), value: 25n });
    for (const raw of sent)
      expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(ACCOUNT);
  });

  it('sends one transaction when the fee is zero; a rejection is 4001 and nothing is signed or sent', async () => {
    const free = host({ feeBps: 0 });
    await route(ORIGIN, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }], free.deps);
    expect(free.sent).toHaveLength(1);
    const rejecting = host({ approve: false });
    await expect(
      route(ORIGIN, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }], rejecting.deps),
    ).rejects.toMatchObject({ code: 4001 });
    expect(rejecting.sent).toEqual([]);
  });

  it('refuses another account (4100), another chain and malformed fields (-32602) before asking', async () => {
    const { deps, approvals } = host();
    await expect(
      route(ORIGIN, 'eth_sendTransaction', [{ from: RECIPIENT, to: RECIPIENT }], deps),
    ).rejects.toMatchObject({ code: 4100 });
    for (const tx of [
      { from: ACCOUNT, to: RECIPIENT, chainId: '0x1' },
      { from: ACCOUNT, to: RECIPIENT, value: '0x01' },
      { from: ACCOUNT, to: RECIPIENT, gasPrice: '0x1', maxFeePerGas: '0x1' },
      { from: ACCOUNT, to: RECIPIENT, type: '0x1' },
      { from: ACCOUNT, to: RECIPIENT, gas: '0x1c9c381' }, // 30,000,001
      { from: ACCOUNT, to: RECIPIENT, data: '0x123' },
      { from: ACCOUNT },
      { from: ACCOUNT, to: '0x000000000000000000000000000000000000DEAd' }, // wrong EIP-55 checksum
    ])
      await expect(route(ORIGIN, 'eth_sendTransaction', [tx], deps), JSON.stringify(tx)).rejects.toMatchObject({
        code: -32602,
      });
    await expect(
      route(ORIGIN, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT }, {}], deps),
    ).rejects.toMatchObject({ code: -32602 });
    expect(approvals).toEqual([]);
  });

  it('a wrong keystore password is 4100 and sends nothing', async () => {
    const { deps, sent } = host();
    deps.approve = async () => ({ approved: true, password: 'wrong' });
    await expect(
      route(ORIGIN, 'eth_sendTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }], deps),
    ).rejects.toMatchObject({ code: 4100 });
    expect(sent).toEqual([]);
  });
});

describe('eth_signTransaction and eth_signTypedData_v4', () => {
  it('signs a transaction that owes no fee without sending it, and refuses one that owes a fee (D-175)', async () => {
    const { deps, sent, approvals } = host();
    const raw = await route(ORIGIN, 'eth_signTransaction', [{ from: ACCOUNT, to: RECIPIENT, data: '0xabcd' }], deps);
    expect(parseTransaction(raw as Hex)).toMatchObject({ nonce: 7, data: '0xabcd', gas: 21_000n });
    expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(ACCOUNT);
    expect(sent).toEqual([]);
    expect(approvals[0]?.kind).toBe('signTransaction');
    await expect(
      route(ORIGIN, 'eth_signTransaction', [{ from: ACCOUNT, to: RECIPIENT, value: '0x1' }], deps),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('D-175') });
  });

  const typedData = {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
      ],
      Order: [
        { name: 'amount', type: 'uint256' },
        { name: 'owner', type: 'address' },
      ],
    },
    primaryType: 'Order',
    domain: { name: 'Exchange', chainId: 1111111 },
    message: { amount: '1000000000000000000000', owner: ACCOUNT },
  } as const;

  it('signs typed data that recovers to the account, showing the domain and the message', async () => {
    const { deps, approvals } = host();
    const signature = await route(ORIGIN, 'eth_signTypedData_v4', [ACCOUNT, typedData], deps);
    expect(
      await verifyTypedData({ address: ACCOUNT, ...typedData, signature } as Parameters<typeof verifyTypedData>[0]),
    ).toBe(true);
    expect(facts(approvals[0])).toMatchObject({
      'Domain name': 'Exchange',
      'Domain chain ID': '1111111',
      'Primary type': 'Order',
    });
    expect(approvals[0]?.detail?.text).toContain('"amount": "1000000000000000000000"');
  });

  it('refuses typed data of another chain, that does not match its types, or that is too large', async () => {
    const { deps, approvals } = host();
    const cases: unknown[] = [
      { ...typedData, domain: { name: 'Exchange', chainId: 1 } },
      { ...typedData, message: { amount: 'lots', owner: ACCOUNT } },
      { ...typedData, primaryType: 'Missing' },
      JSON.stringify({ ...typedData, message: { ...typedData.message, pad: 'x'.repeat(70_000) } }),
      {
        ...typedData,
        types: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`T${i}`, [{ name: 'a', type: 'uint8' }]])),
      },
    ];
    for (const data of cases)
      await expect(route(ORIGIN, 'eth_signTypedData_v4', [ACCOUNT, data], deps)).rejects.toMatchObject({
        code: -32602,
      });
    expect(approvals).toEqual([]);
  });
});

describe('wallet_addEthereumChain and wallet_switchEthereumChain', () => {
  const add = (rpcUrl: string, chainId = '0x4d2') => [
    { chainId, chainName: 'Local test', nativeCurrency: { name: 'T', symbol: 'TST', decimals: 18 }, rpcUrls: [rpcUrl] },
  ];

  it('adds a network whose endpoint serves the chain, after approval, without switching; switching emits chainChanged', async () => {
    const { deps, approvals, emitted, state } = host({ chainIdOf: { 'https://l2.test/': '0x4d2' } });
    await expect(route(ORIGIN, 'wallet_switchEthereumChain', [{ chainId: '0x4d2' }], deps)).rejects.toMatchObject({
      code: 4902,
    });
    expect(await route(ORIGIN, 'wallet_addEthereumChain', add('https://l2.test/'), deps)).toBeNull();
    expect(approvals[0]).toMatchObject({ kind: 'addChain', password: false });
    expect(facts(approvals[0])).toMatchObject({ Network: 'Local test', 'Chain ID': '1234 (0x4d2)', Currency: 'TST' });
    expect(state().chainId).toBe('1111111');
    expect(emitted).toEqual([]);
    expect(await route(ORIGIN, 'wallet_switchEthereumChain', [{ chainId: '0x4d2' }], deps)).toBeNull();
    expect(emitted).toEqual([{ event: 'chainChanged', data: '0x4d2' }]);
    expect(await route(ORIGIN, 'eth_chainId', [], deps)).toBe('0x4d2');
    // Adding it again asks nothing.
    await route(ORIGIN, 'wallet_addEthereumChain', add('https://l2.test/'), deps);
    expect(approvals).toHaveLength(1);
  });

  it('refuses an endpoint serving another chain (-32602), a rejection (4001) and bad parameters (-32602)', async () => {
    const { deps, state } = host({ chainIdOf: { 'https://liar.test/': '0x1' } });
    await expect(route(ORIGIN, 'wallet_addEthereumChain', add('https://liar.test/'), deps)).rejects.toMatchObject({
      code: -32602,
    });
    const rejecting = host({ approve: false, chainIdOf: { 'https://l2.test/': '0x4d2' } });
    await expect(
      route(ORIGIN, 'wallet_addEthereumChain', add('https://l2.test/'), rejecting.deps),
    ).rejects.toMatchObject({ code: 4001 });
    expect(rejecting.state().rpcUrls['1234']).toBeUndefined();
    for (const params of [
      add('http://l2.test/'), // http only on localhost
      add('https://l2.test/', '0x04d2'),
      [{ ...add('https://l2.test/')[0], extra: true }],
      [{ ...add('https://l2.test/')[0], chainName: 'x'.repeat(65) }],
      [{ chainId: '0x4d2' }, {}],
    ])
      await expect(route(ORIGIN, 'wallet_addEthereumChain', params, deps)).rejects.toMatchObject({ code: -32602 });
    expect(Object.keys(state().rpcUrls)).toEqual(['1111111']);
  });

  /** The host's endpoint calls, each with how many approvals the user had been shown by then (D-226). */
  function observed(h: ReturnType<typeof host>, answer?: (url: string) => Promise<unknown>) {
    const calls: Array<{ url: string; method: string; approvalsBefore: number }> = [];
    const forward = h.deps.forward;
    h.deps.forward = async (url, method, params) => {
      calls.push({ url, method, approvalsBefore: h.approvals.length });
      return answer ? answer(url) : forward(url, method, params);
    };
    return calls;
  }

  it('contacts the endpoint only after the user approved, and not at all when the user rejects (D-226)', async () => {
    const rejecting = host({ approve: false, chainIdOf: { 'https://l2.test/': '0x4d2' } });
    const unasked = observed(rejecting);
    await expect(
      route(ORIGIN, 'wallet_addEthereumChain', add('https://l2.test/'), rejecting.deps),
    ).rejects.toMatchObject({ code: 4001 });
    expect(unasked).toEqual([]);
    const approving = host({ chainIdOf: { 'https://l2.test/': '0x4d2' } });
    const asked = observed(approving);
    expect(await route(ORIGIN, 'wallet_addEthereumChain', add('https://l2.test/'), approving.deps)).toBeNull();
    expect(asked).toEqual([{ url: 'https://l2.test/', method: 'eth_chainId', approvalsBefore: 1 }]);
  });

  it("never passes the endpoint's answer or failure on to the page (D-226)", async () => {
    const answers: Record<string, () => Promise<unknown>> = {
      'https://text.test/': async () => 'router admin: firmware 1.2.3, session=abcdef',
      'https://error.test/': async () => {
        throw new ProviderRpcError(-32000, 'router admin: firmware 1.2.3, session=abcdef', { leak: true });
      },
      'https://down.test/': async () => {
        throw new ProviderRpcError(4901, 'the gateway https://down.test cannot be reached: ECONNREFUSED 10.0.0.1');
      },
      'https://other.test/': async () => '0x1',
    };
    const errors: unknown[] = [];
    for (const url of Object.keys(answers)) {
      const h = host();
      observed(h, (u) => answers[u]!());
      const error = await route(ORIGIN, 'wallet_addEthereumChain', add(url), h.deps).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderRpcError);
      const { code, message, data } = error as ProviderRpcError;
      expect({ code, data }).toEqual({ code: -32602, data: undefined });
      expect(message).not.toMatch(/firmware|session|ECONNREFUSED|10\.0\.0\.1|0x1\b/);
      errors.push(message.replace(url.slice(0, -1), '<endpoint>'));
      expect(h.state().rpcUrls['1234']).toBeUndefined();
    }
    // One refusal, whatever the endpoint did.
    expect(new Set(errors).size).toBe(1);
  });

  it("refuses to replace the native chain's endpoint, asking nothing and contacting nothing (D-226)", async () => {
    const h = host();
    const calls = observed(h);
    const nativeHex = '0x10f447';
    for (const url of ['https://attacker.test/rpc', STATE.rpcUrls['1111111']!]) {
      const error = await route(ORIGIN, 'wallet_addEthereumChain', add(url, nativeHex), h.deps).catch((e) => e);
      expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('native chain') });
    }
    expect(h.approvals).toEqual([]);
    expect(calls).toEqual([]);
    expect(h.state().rpcUrls).toEqual(STATE.rpcUrls);
  });
});

describe('EIP-1193 events and errors', () => {
  it('emits disconnect (4900) when the endpoint stops answering and connect when it answers again', async () => {
    const { deps, emitted } = host();
    const state = await deps.state();
    await deps.saveState({ ...state!, rpcUrls: { '1111111': 'https://down.test/rpc' } });
    await expect(route(ORIGIN, 'eth_blockNumber', [], deps)).rejects.toMatchObject({ code: 4901 });
    await expect(route(ORIGIN, 'eth_blockNumber', [], deps)).rejects.toMatchObject({ code: 4901 });
    expect(emitted).toEqual([{ event: 'disconnect', data: { code: 4900, message: 'unreachable' } }]);
    await deps.saveState({ ...state!, rpcUrls: { '1111111': 'https://up.test/rpc' } });
    expect(await route(ORIGIN, 'eth_blockNumber', [], deps)).toBe('0x1');
    expect(emitted[1]).toEqual({ event: 'connect', data: { chainId: '0x10f447' } });
  });

  it('bounds params (-32602) and refuses unknown methods (4200)', async () => {
    const { deps } = host();
    await expect(route(ORIGIN, 'eth_blockNumber', ['x'.repeat(300_000)], deps)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(route(ORIGIN, 'eth_blockNumber', 'nope', deps)).rejects.toMatchObject({ code: -32602 });
    await expect(route(ORIGIN, 'x'.repeat(65), [], deps)).rejects.toMatchObject({ code: -32602 });
    await expect(route(ORIGIN, 'eth_sign', [ACCOUNT, '0x00'], deps)).rejects.toMatchObject({ code: 4200 });
  });

  it('svckit_requestSession signs in at the configured wallet service; a failing step is -32603 with its status', async () => {
    const { deps } = host();
    const asked: string[] = [];
    deps.walletApi = async (url, body) => {
      asked.push(`${body === undefined ? 'GET' : 'POST'} ${url}`);
      return { status: 503, body: { error: 'maintenance' } };
    };
    await expect(route(ORIGIN, 'svckit_requestSession', [], deps)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('POST /wallets/register failed: 503'),
    });
    expect(asked).toEqual(['POST https://wallet.test/wallets/register']);
  });

  it('svckit_requestSession asks first and calls nothing when the user rejects (4001)', async () => {
    const { deps, approvals } = host({ approve: false });
    let called = 0;
    deps.walletApi = async () => {
      called++;
      return { status: 500, body: null };
    };
    await expect(route(ORIGIN, 'svckit_requestSession', [], deps)).rejects.toMatchObject({ code: 4001 });
    expect(approvals[0]).toMatchObject({ kind: 'session', password: true });
    expect(facts(approvals[0])['Wallet service']).toBe('https://wallet.test');
    expect(called).toBe(0);
  });
});
