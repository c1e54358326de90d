/**
 * svckit_requestSession (D-174): a connected dApp asks the wallet for a wallet session
 * (specs/wallet.openapi.yaml "Session flow"). After the user approves with the keystore password, the wallet
 * signs in with the library's own login (session-flow.ts `loginWithSigner`, the one the wallet view unlocks
 * with): register the public keys (idempotent, D-147), POST /auth/challenge, check the EIP-4361 message
 * (domain = the wallet service's host, D-043, D-071), sign it with the account's key (`ecdsaSig`, EIP-191,
 * D-035) and the ML-DSA-65 identity (`pqSig`, D-044), POST /auth/verify and check the token against the
 * published JWKS (D-018). The wallet service is the one set on the options page (sources.ts), never one the
 * page names. D-209: the token asked for is scoped "dapp", which the sync devices, the managed account and its
 * guardian share and changes to owner bindings refuse; the approval window says what it opens and what not.
 */
import {
  createWalletClient,
  deriveChainKey,
  identitySignerWeb,
  loginWithSigner,
} from '@svckit/sdk/wallet-library/browser';
import { accountIndex } from './access.ts';
import type { ApprovalRow } from './approval.ts';
import { sessionParams } from './params.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import type { RouterDeps } from './router.ts';
import type { WalletState } from './state.ts';

/** What svckit_requestSession resolves with (D-174). */
export interface SessionResult {
  /** The ML-DSA-65 JWT of POST /auth/verify (D-005, D-018), for `Authorization: Bearer`. */
  token: string;
  svcId: string;
  address: string;
  /** The challenge nonce the token names (`chl`). */
  nonce: string;
  /** Origin of the wallet service that issued the token. */
  walletApi: string;
}

/** D-209: what a dapp-scoped session token opens and what it does not, as the approval window says it. */
export const DAPP_TOKEN_ALLOWS =
  'Read your activity, your owner bindings and their activity, and ask banking authorisations as this identity';
/** D-209: the operations that refuse a dapp-scoped token. */
export const DAPP_TOKEN_REFUSED =
  'Your sync devices, your managed account and its recovery share, and changes to owner bindings';

/** The facts of the session approval window (D-174, D-209), in order. */
export function sessionApprovalRows(walletOrigin: string, address: string, svcId: string | undefined): ApprovalRow[] {
  return [
    { label: 'Wallet service', value: walletOrigin },
    { label: 'Account', value: address },
    { label: 'Identity (svcId)', value: svcId ?? 'derived when you approve' },
    { label: 'Signatures', value: 'EIP-191 with the account key and ML-DSA-65 with the identity key' },
    { label: 'Session', value: 'A token valid 15 minutes, given to this site' },
    { label: 'The site may', value: DAPP_TOKEN_ALLOWS },
    { label: 'The site may not reach', value: DAPP_TOKEN_REFUSED },
  ];
}

/** Runs the dual-signature login for the connected account after approval. */
export async function requestSession(
  origin: string,
  params: unknown,
  state: WalletState,
  deps: RouterDeps,
): Promise<SessionResult> {
  sessionParams(params);
  const index = await accountIndex(origin, state, deps);
  const address = state.accounts[index]!;
  const base = new URL(await deps.walletApiUrl());
  const decision = await deps.approve({
    kind: 'session',
    origin,
    rows: sessionApprovalRows(base.origin, address, state.svcId),
    password: true,
  });
  if (!decision.approved || !decision.password)
    throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected the session request');
  const client = createWalletClient({ baseUrl: base.origin, fetch: fetchThrough(deps) });
  return deps.withSeed(state, decision.password, async (seed) => {
    const key = deriveChainKey(seed, 'evm', index);
    const identity = identitySignerWeb(seed);
    try {
      // D-209: a site gets a dapp-scoped token; the flow refuses one that does not say so.
      const session = await loginWithSigner({ client, key, identity, scope: 'dapp' });
      return { token: session.token, svcId: session.svcId, address, nonce: session.nonce, walletApi: base.origin };
    } catch (error) {
      if (error instanceof ProviderRpcError) throw error; // e.g. 4900: the wallet service cannot be reached
      // A failing step names the service's status (SessionError: "POST /auth/verify failed: 401 ...").
      throw new ProviderRpcError(ERRORS.internal, (error as Error).message);
    } finally {
      key.privateKey.fill(0);
      identity.wipe();
    }
  });
}

/**
 * The generated client's fetch, answered through the service worker's bounded JSON requests
 * (RouterDeps.walletApi: GET without a body, POST with one).
 */
function fetchThrough(deps: RouterDeps): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const text = request.method === 'GET' ? '' : await request.text();
    const answer = await deps.walletApi(request.url, text ? JSON.parse(text) : undefined);
    const bodyless = [204, 205, 304].includes(answer.status); // statuses a Response may not carry a body with
    return new Response(bodyless ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  };
}
