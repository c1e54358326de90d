/**
 * The browser-safe part of the session login (specs/wallet.openapi.yaml "Session flow"): register, POST
 * /auth/challenge, the EIP-4361 checks (D-043, D-071), POST /auth/verify and the JWKS check of the token
 * (D-018). No node: imports, so the browser extension bundles it; the identity signature comes from the
 * caller ({@link IdentitySigner}): the Node library signs through the crypto façade (session.ts), the
 * extension with @noble/post-quantum.
 */
import { base64urlnopad } from '@scure/base';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { createClient, type Client } from '../../../generated/wallet/client/index.ts';
import * as sdk from '../../../generated/wallet/sdk.gen.ts';
import type { RegisterKey, SessionTokenClaims, TokenScope } from '../../../generated/wallet/types.gen.ts';
import { dateOf, systemClock, type Clock } from '../../clock.ts';
import { bytesToHex, familyOfAddress, svcIdOf } from './codec.ts';
import type { WalletIdentity } from './identity.ts';
import type { ChainKey } from './keys.ts';
import { signChainMessage } from './sign-message.ts';
import { checkChallengeMessage, registrationMessage, SessionError } from './session-messages.ts';

export { checkChallengeMessage, registrationMessage, SessionError };

/** Options of {@link login}. */
export interface LoginOptions {
  /** A generated wallet client whose baseUrl is {wallet_api_url}. */
  client: Client;
  identity: WalletIdentity;
  /** The chain key that signs `ecdsaSig`: an EVM, Bitcoin or Tron key (D-035). */
  key: Pick<ChainKey, 'family' | 'privateKey' | 'address'>;
  /** Call POST /wallets/register first (idempotent). Default true. */
  register?: boolean;
  /** Public addresses to register with the identity; default the signing key's. */
  registerKeys?: RegisterKey[];
  /** Domain the message must name (EIP-4361 phishing check); default the host of the client's baseUrl. */
  expectedDomain?: string;
  /** Verify the token's ML-DSA-65 signature and claims against the published JWKS. Default true. */
  verifyToken?: boolean;
  /** Retries of a step answered 429 (after Retry-After, at most 5 s each; D-024: 5/s on /auth/*). Default 3. */
  retries?: number;
  /** The clock that dates the registration and checks the challenge's expiry. Default the system clock. */
  clock?: Clock;
  /**
   * What the token may open (D-209): "dapp" for a token handed to a site, which the sync devices and the managed
   * account refuse. Default: none sent, so the service issues the owner's token.
   */
  scope?: TokenScope;
}

/** A session. */
export interface Session {
  token: string;
  claims: SessionTokenClaims;
  svcId: string;
  address: string;
  /** The consumed nonce (the token's `chl`), naming the authorisation record. */
  nonce: string;
  /** The exact message both keys signed. */
  message: string;
  expiresAt: Date;
  /** From the registration step, when it ran. */
  isNew?: boolean;
}

/** The identity as the login needs it: its public values and a pure ML-DSA-65 signer (D-044). */
export interface IdentitySigner {
  svcId: string;
  publicKey: Uint8Array;
  /** Pure ML-DSA-65 signature, empty context, over the UTF-8 bytes of `message`. */
  sign(message: string): Uint8Array;
}

/** challenge -> both signatures -> verify -> token. */
export async function loginWithSigner(
  options: Omit<LoginOptions, 'identity'> & { identity: IdentitySigner },
): Promise<Session> {
  const { client, identity, key } = options;
  const clock = options.clock ?? systemClock;
  const retries = options.retries ?? 3;
  const baseUrl = new URL(String(client.getConfig().baseUrl));
  const address = key.address;
  if (familyOfAddress(address) !== key.family)
    throw new SessionError(`the ${key.family} key cannot sign for address ${address}`);
  if (svcIdOf(identity.publicKey) !== identity.svcId)
    throw new SessionError('the identity svcId is not the fingerprint of its public key (D-031)');

  let isNew: boolean | undefined;
  if (options.register ?? true) {
    const keys = options.registerKeys ?? [{ chainId: key.family === 'evm' ? '1111111' : key.family, address }];
    // D-147: registration is signed by the identity key, so nobody else can attach addresses to this svcId.
    const reg = await patient(retries, () => {
      const issuedAt = dateOf(clock).toISOString();
      const proof = bytesToHex(identity.sign(registrationMessage({ svcId: identity.svcId, issuedAt, keys })));
      return sdk.walletRegisterWallet({
        client,
        body: { svcId: identity.svcId, pqPublicKey: bytesToHex(identity.publicKey), keys, issuedAt, proof },
      });
    });
    if (!reg.data)
      throw new SessionError(`POST /wallets/register failed: ${describe(reg)}`, reg.response?.status, reg.error);
    isNew = reg.data.isNew;
  }
  const challenge = await patient(retries, () =>
    sdk.walletCreateChallenge({ client, body: { address, svcId: identity.svcId } }),
  );
  if (!challenge.data)
    throw new SessionError(
      `POST /auth/challenge failed: ${describe(challenge)}`,
      challenge.response?.status,
      challenge.error,
    );
  const { nonce, message } = challenge.data;
  checkChallengeMessage(message, {
    domain: options.expectedDomain ?? baseUrl.host,
    address,
    svcId: identity.svcId,
    nonce,
    now: dateOf(clock),
  });

  const ecdsaSig = signChainMessage(key, message);
  const pqSig = bytesToHex(identity.sign(message));
  // A 429 is answered before the handler runs, so the nonce is still unused and the retry may reuse it.
  const verified = await patient(retries, () =>
    sdk.walletVerify({
      client,
      body: { address, svcId: identity.svcId, ecdsaSig, pqSig, ...(options.scope ? { scope: options.scope } : {}) },
    }),
  );
  if (!verified.data)
    throw new SessionError(
      `POST /auth/verify failed: ${describe(verified)}`,
      verified.response?.status,
      verified.error,
    );
  const { token } = verified.data;
  const claims =
    options.verifyToken === false
      ? decodeClaims(token)
      : await verifySessionToken(client, token, { svcId: identity.svcId, address, nonce });
  if (claims.sub !== identity.svcId || claims.chl !== nonce)
    throw new SessionError('the token names another identity or challenge');
  // D-209: a token meant for a site must say so, or a service that ignored the request would hand out the owner's.
  if (options.scope === 'dapp' && claims.scope !== 'dapp')
    throw new SessionError(`asked for a dapp-scoped token, got scope ${JSON.stringify(claims.scope ?? null)}`);
  return {
    token,
    claims,
    svcId: identity.svcId,
    address,
    nonce,
    message,
    expiresAt: new Date(claims.exp * 1000),
    ...(isNew !== undefined ? { isNew } : {}),
  };
}

/** Verifies a session token with the service's published JWKS (D-018): ML-DSA-65 signature, iss, aud, time, sub. */
export async function verifySessionToken(
  client: Client,
  token: string,
  expected: { svcId?: string; address?: string; nonce?: string } = {},
): Promise<SessionTokenClaims> {
  const jwks = await sdk.walletGetJwks({ client });
  if (!jwks.data) throw new SessionError(`GET /.well-known/jwks.json failed: ${describe(jwks)}`, jwks.response?.status);
  const origin = new URL(String(client.getConfig().baseUrl)).origin;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(
      token,
      createLocalJWKSet(jwks.data as unknown as Parameters<typeof createLocalJWKSet>[0]),
      {
        algorithms: ['ML-DSA-65'],
        typ: 'JWT',
        ...(expected.svcId ? { subject: expected.svcId } : {}),
      },
    ));
  } catch (error) {
    throw new SessionError(`the session token does not verify against the published JWKS: ${(error as Error).message}`);
  }
  const claims = payload as unknown as SessionTokenClaims;
  if (new URL(claims.iss).origin !== origin || new URL(claims.aud).origin !== origin)
    throw new SessionError(`the token's iss/aud (${claims.iss}, ${claims.aud}) is not ${origin}`);
  if (expected.address && claims.addr.toLowerCase() !== expected.address.toLowerCase())
    throw new SessionError(`the token names address ${claims.addr}`);
  if (expected.nonce && claims.chl !== expected.nonce) throw new SessionError('the token names another challenge');
  return claims;
}

/** A client for the same origin that presents the session token as `Authorization: Bearer` (D-018). */
export function authorizedClient(client: Client, session: Pick<Session, 'token'>): Client {
  return createClient({ ...client.getConfig(), auth: () => session.token });
}

/** Runs `call` again after Retry-After while it is answered 429, at most `retries` times. */
async function patient<T extends { response?: Response }>(retries: number, call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const result = await call();
    if (result.response?.status !== 429 || attempt >= retries) return result;
    const wait = Math.min(5, Math.max(1, Number(result.response.headers.get('retry-after')) || 1));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

function decodeClaims(token: string): SessionTokenClaims {
  const [, payload] = token.split('.');
  return JSON.parse(new TextDecoder().decode(fromBase64url(payload ?? ''))) as SessionTokenClaims;
}

function fromBase64url(text: string): Uint8Array {
  return base64urlnopad.decode(text);
}

function describe(result: { error?: unknown; response?: Response }): string {
  return `${result.response?.status ?? 'no response'} ${JSON.stringify(result.error ?? null)}`;
}
