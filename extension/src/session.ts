/**
 * svckit_requestSession (D-174): a connected dApp asks the wallet for a wallet session
 * (specs/wallet.openapi.yaml "Session flow"). After the user approves with the keystore password, the wallet
 * registers its public keys (idempotent, D-147), asks POST /auth/challenge, checks the EIP-4361 message with
 * the library's own check (domain = the wallet service's host, D-043, D-071), signs it with the account's key
 * (`ecdsaSig`, EIP-191, D-035) and the ML-DSA-65 identity (`pqSig`, D-044), and posts both to /auth/verify.
 * The wallet service is the one configured in the wallet, never one the page names.
 */
import {
  bytesToHex,
  checkChallengeMessage,
  deriveChainKey,
  identityKeyPairWeb,
  NATIVE_CHAIN_ID,
  registrationMessage,
  SessionError,
  signChainMessage,
  signWithIdentityWeb,
} from '../../src/client/wallet/browser.ts';
import { sessionParams } from './params.ts';
import { ERRORS, ProviderRpcError } from './protocol.ts';
import { accountIndex } from './access.ts';
import type { RouterDeps } from './router.ts';
import { DEFAULT_WALLET_API, type WalletState } from './state.ts';

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

/** Runs the dual-signature login for account 0 after approval. */
export async function requestSession(
  origin: string,
  params: unknown,
  state: WalletState,
  deps: RouterDeps,
): Promise<SessionResult> {
  sessionParams(params);
  const index = await accountIndex(origin, state, deps);
  const address = state.accounts[index]!;
  const base = new URL(`${(state.walletApiUrl ?? DEFAULT_WALLET_API).replace(/\/+$/, '')}/`);
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
  const post = async (path: string, body: unknown) => {
    const answer = await deps.walletApi(new URL(path, base).href, body);
    if (answer.status !== 200 && answer.status !== 201)
      throw new ProviderRpcError(
        ERRORS.internal,
        `POST /${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    return answer.body as Record<string, unknown>;
  };
  return deps.withSeed(state, decision.password, async (seed) => {
    const key = deriveChainKey(seed, 'evm', index);
    const identity = identityKeyPairWeb(seed);
    try {
      const keys = [{ chainId: NATIVE_CHAIN_ID, address }];
      const issuedAt = new Date().toISOString();
      const proof = signWithIdentityWeb(
        identity.secretKey,
        registrationMessage({ svcId: identity.svcId, issuedAt, keys }),
      );
      await post('wallets/register', {
        svcId: identity.svcId,
        pqPublicKey: bytesToHex(identity.publicKey),
        keys,
        issuedAt,
        proof: bytesToHex(proof),
      });
      const challenge = await post('auth/challenge', { address, svcId: identity.svcId });
      const nonce = String(challenge.nonce);
      const message = String(challenge.message);
      try {
        checkChallengeMessage(message, { domain: base.host, address, svcId: identity.svcId, nonce });
      } catch (error) {
        if (error instanceof SessionError) throw new ProviderRpcError(ERRORS.internal, error.message);
        throw error;
      }
      const ecdsaSig = signChainMessage(key, message);
      const pqSig = bytesToHex(signWithIdentityWeb(identity.secretKey, message));
      const verified = await post('auth/verify', { address, svcId: identity.svcId, ecdsaSig, pqSig });
      if (typeof verified.token !== 'string')
        throw new ProviderRpcError(ERRORS.internal, 'POST /auth/verify answered without a token');
      return { token: verified.token, svcId: identity.svcId, address, nonce, walletApi: base.origin };
    } finally {
      key.privateKey.fill(0);
      identity.secretKey.fill(0);
    }
  });
}
