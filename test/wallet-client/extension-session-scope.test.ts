// D-209 in the extension, without a browser: svckit_requestSession asks the wallet service for a dapp-scoped
// token, and the approval window (the rows approve.ts renders as text) says what that token lets the site do
// and what it cannot reach. The wallet service here is a fake that checks the requests the real flow sends.
import { describe, expect, it } from 'vitest';
import { APPROVAL_TITLES, type ApprovalRequest } from '../../extension/src/approval.ts';
import { ProviderRpcError } from '../../extension/src/protocol.ts';
import { route, type RouterDeps } from '../../extension/src/router.ts';
import { sessionApprovalRows } from '../../extension/src/session.ts';
import type { WalletState } from '../../extension/src/state.ts';
import { mnemonicToSeed } from '../../src/client/wallet/browser.ts';
import { challengeMessage } from '../../src/server/wallet/challenge.ts';
import { TEST_MNEMONIC } from './support.ts';

const ACCOUNT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const ORIGIN = 'https://dapp.test';
const WALLET = 'https://wallet.test';
const STATE: WalletState = {
  keystore: {} as WalletState['keystore'],
  accounts: [ACCOUNT],
  chainId: '1111111',
  rpcUrls: { '1111111': 'https://gw.test/rpc' },
};

const facts = (rows: ApprovalRequest['rows']) => Object.fromEntries(rows.map((r) => [r.label, r.value]));

/** A connected site, an approving user and a wallet service that records each request and stops at verify. */
function host() {
  const approvals: ApprovalRequest[] = [];
  const requests: { url: string; body: unknown }[] = [];
  const deps: RouterDeps = {
    state: async () => STATE,
    connected: async () => [ORIGIN],
    setConnected: async () => {},
    saveState: async () => {},
    approve: async (request) => {
      approvals.push(request);
      return { approved: true, password: 'pw' };
    },
    forward: async () => {
      throw new ProviderRpcError(4200, 'no chain in this test');
    },
    withSeed: async (_state, _password, use) => use(mnemonicToSeed(TEST_MNEMONIC)),
    walletApiUrl: async () => `${WALLET}/`,
    walletApi: async (url, body) => {
      requests.push({ url, body });
      const path = new URL(url).pathname;
      if (path === '/wallets/register') return { status: 200, body: { ok: true, isNew: true } };
      if (path === '/auth/challenge') {
        const { address, svcId } = body as { address: string; svcId: string };
        const nonce = 'a'.repeat(32);
        const message = challengeMessage({
          origin: WALLET,
          address,
          chainId: '1111111',
          nonce,
          issuedAt: Date.now(),
          svcId,
        });
        return { status: 200, body: { nonce, message } };
      }
      return { status: 503, body: { error: 'stopped here by the test', code: 'UNAVAILABLE' } };
    },
    emit: () => {},
  };
  return { deps, approvals, requests };
}

describe('svckit_requestSession and the token scope (D-209)', () => {
  it('the approval window says what the token lets the site do and what it cannot reach', () => {
    const rows = facts(sessionApprovalRows(WALLET, ACCOUNT, '780b9aefce695a5f'));
    expect(rows).toMatchObject({
      'Wallet service': WALLET,
      Account: ACCOUNT,
      'Identity (svcId)': '780b9aefce695a5f',
      Session: 'A token valid 15 minutes, given to this site',
    });
    expect(rows['The site may']).toMatch(/activity/);
    for (const refused of ['sync devices', 'managed account', 'recovery share', 'owner bindings'])
      expect(rows['The site may not reach']).toContain(refused);
    expect(APPROVAL_TITLES.session).toMatch(/this site/);
  });

  it('asks the wallet service for a dapp-scoped token, after the approval that names the scope', async () => {
    const { deps, approvals, requests } = host();
    await expect(route(ORIGIN, 'svckit_requestSession', [], deps)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('POST /auth/verify failed: 503'),
    });
    expect(approvals).toHaveLength(1);
    expect(facts(approvals[0]!.rows)['The site may not reach']).toContain('sync devices');
    const verify = requests.find((r) => r.url === `${WALLET}/auth/verify`);
    expect(verify?.body).toMatchObject({ address: ACCOUNT, scope: 'dapp' });
  });
});
