/**
 * svckit_requestSession (D-174): a connected dApp asks the wallet for a wallet session
 * (specs/wallet.openapi.yaml "Session flow"). After the user approves with the keystore password, the wallet
 * signs in with the library's own login (session-flow.ts `loginWithSigner`, the one the wallet view unlocks
 * with): register the public keys (idempotent, D-147), POST /auth/challenge, check the EIP-4361 message
 * (domain = the wallet service's host, D-043, D-071), sign it with the account's key (`ecdsaSig`, EIP-191,
 * D-035) and the ML-DSA-65 identity (`pqSig`, D-044), POST /auth/verify and check the token against the
 * published JWKS (D-018). The wallet service is the one set on the options page (sources.ts), never one the
 * page names.
 */
import {
  createWalletClient,
  deriveChainKey,
  identitySignerWeb,
  loginWithSigner,
} from '../../src/client/wallet/browser.ts';
import { accountIndex } from './access.ts';
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
    rows: [
      { label: 'Wallet service', value: base.origin },
      { label: 'Account', value: address },
      { label: 'Identity (svcId)', value: state.svcId ?? 'derived when you approve' },
      { label: 'Signatures', value: 'EIP-191 with the account key and ML-DSA-65 with the identity key' },
      { label: 'Session', value: 'A token valid 15 minutes, given to this site' },
    ],
    password: true,
  });
  if (!decision.approved || !decision.password)
    throw new ProviderRpcError(ERRORS.userRejected, 'the user rejected the session request');
  const client = createWalletClient({ baseUrl: base.origin, fetch: fetchThrough(deps) });
  return deps.withSeed(state, decision.password, async (seed) => {
    const key = deriveChainKey(seed, 'evm', index);
    const identity = identitySignerWeb(seed);
    try {
      const session = await loginWithSigner({ client, key, identity });
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
