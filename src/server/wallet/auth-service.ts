/**
 * Registration, challenge and verification (spec "E. Wallet session API", Authentication steps 1 to 4):
 * "A session is obtained by proving control of two keys (one classical, one post-quantum) over a fresh
 * challenge." Both signatures must pass. Challenges are keyed by nonce and several may be outstanding
 * (D-145): verify consumes only the one both signatures sign, so a third party that knows the public
 * (address, svcId) can neither replace nor burn the owner's challenge; a successful login keeps its signed
 * challenge as the authorisation record (D-081).
 */
import { z } from 'zod';
import { zChallengeRequest, zRegisterKey, zRegisterRequest, zVerifyRequest } from '@svckit/sdk/wallet/zod';
import type { AuthorizationRecord, ChallengeResponse, RegisterResponse } from '@svckit/sdk/wallet';
import type { Clock } from '@svckit/sdk/clock';
import { fromHex, sha3_256, toHex } from '@svckit/sdk/crypto';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import { canonicalAddress, messageChainId, type AddressKind } from './addresses.ts';
import {
  authRecord,
  CHALLENGES_IN_TOTAL,
  challengeCount,
  consumeChallenge,
  identityKey,
  isRegisteredAddress,
  outstandingChallenges,
  purgeExpiredChallenges,
  purgeIdentityOrigins,
  putAuthRecord,
  putChallenge,
  registerIdentity,
} from './auth-store.ts';
import { ipKey } from './sync-store.ts';
import { CHALLENGE_LIFETIME_MS, challengeMessage, freshNonce } from './challenge.ts';
import { verifyClassical, verifyPq } from './signatures.ts';
import type { SessionTokens } from './tokens.ts';
import { registrationMessage } from '@svckit/sdk/wallet-library';

/** D-031: svcId = lower-case hex of the first 8 bytes of SHA3-256 of the raw public key. */
export const fingerprint = (publicKey: Uint8Array) => toHex(sha3_256(publicKey).subarray(0, 8));

const EXPLAIN = {
  svcId: '16 lower-case hex characters',
  address: 'an EVM (0x + 40 hex), Bitcoin (bc1q...) or Tron (T...) address',
  pqPublicKey: '3904 hex characters (a 1952-byte ML-DSA-65 public key)',
  pqSig: '6618 hex characters (a 3309-byte ML-DSA-65 signature)',
  proof: '6618 hex characters (a 3309-byte ML-DSA-65 signature by the identity key over the registration, D-147)',
  issuedAt: 'an ISO 8601 date-time (when the proof was signed)',
  ecdsaSig: '65 bytes: 0x + 130 hex (EVM, Tron) or 88 base64 characters (Bitcoin BIP-137)',
  'keys[].chainId': '1111111, an EVM chain id, "bitcoin" or "tron"',
  'keys[].address': 'an EVM (0x + 40 hex), Bitcoin (bc1q...) or Tron (T...) address',
  scope: '"owner" or "dapp" (D-209)',
};

const registerBody = zRegisterRequest.extend({ keys: z.array(zRegisterKey.strict()).max(64).optional() }).strict();
const challengeBody = zChallengeRequest.strict();
const verifyBody = zVerifyRequest.strict();

/** Which address family a chain id takes (D-065). */
const familyOf = (chainId: string): AddressKind =>
  chainId === 'bitcoin' ? 'bitcoin' : chainId === 'tron' ? 'tron' : 'evm';

/** The login flow over the store, the clock and the token issuer. */
export class AuthService {
  private lastPurge = 0;
  private lastOriginPurge = 0;

  /** `origin()` is {wallet_api_url}, read per request (ports are known only once listening). */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly tokens: SessionTokens,
    private readonly origin: () => string,
    /** D-219: new identities one client IP may register per hour. */
    private readonly identitiesPerIpPerHour: number,
  ) {}

  /** POST /wallets/register from client IP `ip` (D-030, D-031, D-069, D-219). */
  async register(body: unknown, ip: string): Promise<RegisterResponse> {
    const input = guard(registerBody, body, EXPLAIN);
    const key = fromHex(input.pqPublicKey.toLowerCase());
    if (fingerprint(key) !== input.svcId) {
      throw new RestError(
        ErrorCode.SVC_ID_MISMATCH,
        `"svcId" expected the fingerprint of pqPublicKey (first 8 bytes of SHA3-256, hex), got "${input.svcId}"`,
      );
    }
    // D-147: the identity key signs the request; checked before anything is stored.
    const issuedAt = Date.parse(input.issuedAt);
    if (!Number.isFinite(issuedAt) || Math.abs(issuedAt - this.clock.now()) > CHALLENGE_LIFETIME_MS) {
      throw new RestError(
        ErrorCode.PROOF_EXPIRED,
        `"issuedAt" must be within 5 minutes of the server's clock (${new Date(this.clock.now()).toISOString()}), got ${JSON.stringify(input.issuedAt)}`,
      );
    }
    if (
      !verifyPq(
        key,
        registrationMessage({ svcId: input.svcId, issuedAt: input.issuedAt, keys: input.keys ?? [] }),
        input.proof,
      )
    ) {
      throw new RestError(
        ErrorCode.INVALID_SIGNATURE,
        '"proof" does not verify against pqPublicKey over this registration: sign the registration text with the identity key',
      );
    }
    const keys = (input.keys ?? []).map((k, i) => ({
      chainId: k.chainId,
      address: canonicalAddress(`keys[${i}].address`, k.address, [familyOf(k.chainId)], k.chainId).address,
    }));
    const now = new Date(this.clock.now());
    if (now.getTime() - this.lastOriginPurge >= 60_000) {
      this.lastOriginPurge = now.getTime();
      await purgeIdentityOrigins(this.db, now);
    }
    const isNew = await registerIdentity(this.db, input.svcId, key, keys, now, {
      ipKey: ipKey(ip),
      perHour: this.identitiesPerIpPerHour,
    });
    return { ok: true, isNew };
  }

  /** POST /auth/challenge (D-043, D-068, D-071, D-145, D-208); `ip` is the client's address as the rate limits see it. */
  async challenge(body: unknown, ip: string): Promise<ChallengeResponse> {
    const input = guard(challengeBody, body, EXPLAIN);
    const { kind, address } = canonicalAddress('address', input.address);
    // D-208: only a chain address registered to the svcId gets a challenge. An unknown svcId and an address not
    // registered to it get one answer, whatever other identities hold, so the 404 says only what a 200 would.
    if (!(await isRegisteredAddress(this.db, input.svcId, address))) {
      throw new RestError(
        ErrorCode.SVC_ID_NOT_REGISTERED,
        `svcId ${input.svcId} has no registered address ${address}: register the identity with this address in "keys" (POST /wallets/register) first`,
      );
    }
    const now = this.clock.now();
    const nonce = freshNonce();
    const message = challengeMessage({
      origin: this.origin(),
      address,
      chainId: messageChainId(kind),
      nonce,
      issuedAt: now,
      svcId: input.svcId,
    });
    // Expired challenges can never be used; sweep them at most once a minute rather than on every request.
    if (now - this.lastPurge >= 60_000) {
      this.lastPurge = now;
      await purgeExpiredChallenges(this.db, new Date(now));
    }
    // D-145: a bounded store in all; D-208 bounds it per address and per client IP in putChallenge.
    if ((await challengeCount(this.db)) >= CHALLENGES_IN_TOTAL) {
      await purgeExpiredChallenges(this.db, new Date(now));
      if ((await challengeCount(this.db)) >= CHALLENGES_IN_TOTAL) {
        throw new RestError(
          ErrorCode.TOO_MANY_CHALLENGES,
          'too many sign-in challenges are outstanding on this service; try again in a few minutes',
        );
      }
    }
    const row = { address, svcId: input.svcId, nonce, message, expiresAt: new Date(now + CHALLENGE_LIFETIME_MS), ip };
    await putChallenge(this.db, row, now, CHALLENGE_LIFETIME_MS);
    return { nonce, message };
  }

  /** POST /auth/verify: both signatures over the outstanding message, then a token (D-005, D-018, D-035, D-044, D-209). */
  async verify(body: unknown): Promise<{ token: string }> {
    const input = guard(verifyBody, body, EXPLAIN);
    const { kind, address } = canonicalAddress('address', input.address);
    const candidates = await outstandingChallenges(this.db, address, input.svcId, new Date(this.clock.now()));
    if (candidates.length === 0) {
      throw new RestError(
        ErrorCode.CHALLENGE_EXPIRED,
        'no unused challenge for this address and svcId: the nonce was used or has expired; request a new challenge',
      );
    }
    const publicKey = await identityKey(this.db, input.svcId);
    if (!publicKey) throw new RestError(ErrorCode.INVALID_SIGNATURE, `svcId ${input.svcId} is not registered`);
    // spec: "Both signatures must pass". D-145: the signed challenge is the one outstanding message both
    // signatures verify over; a failed attempt consumes nothing, so nobody but the signer can use or burn it.
    let classicalOk = false;
    let challenge: (typeof candidates)[number] | undefined;
    for (const candidate of candidates) {
      if (!(await verifyClassical(kind, address, candidate.message, input.ecdsaSig))) continue;
      classicalOk = true;
      if (verifyPq(publicKey, candidate.message, input.pqSig)) {
        challenge = candidate;
        break;
      }
    }
    if (!classicalOk)
      throw new RestError(
        ErrorCode.INVALID_SIGNATURE,
        `"ecdsaSig" does not recover to address ${address} over an outstanding challenge`,
      );
    if (!challenge)
      throw new RestError(
        ErrorCode.INVALID_SIGNATURE,
        `"pqSig" does not verify against the registered ML-DSA-65 public key of svcId ${input.svcId}`,
      );
    // Single use: of two verifies racing with the same signatures, only the one that deletes the row goes on.
    if (!(await consumeChallenge(this.db, challenge.nonce))) {
      throw new RestError(ErrorCode.CHALLENGE_EXPIRED, 'this challenge was just used: request a new challenge');
    }
    // D-209: the signer chooses the scope; a wallet signing in for a site asks for "dapp".
    const { token } = await this.tokens.issue(input.svcId, address, challenge.nonce, input.scope ?? 'owner');
    await putAuthRecord(this.db, {
      nonce: challenge.nonce,
      svcId: input.svcId,
      address,
      message: challenge.message,
      ecdsaSig: input.ecdsaSig,
      pqSig: fromHex(input.pqSig.toLowerCase()),
      verifiedAt: new Date(this.clock.now()),
    });
    return { token };
  }

  /** GET /auth/records/{nonce} (D-081): everything a third party needs to re-verify the login. */
  async record(params: { nonce?: unknown }): Promise<AuthorizationRecord> {
    const nonce = String(params.nonce ?? '');
    if (!/^[0-9a-f]{32}$/.test(nonce))
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        `"nonce" expected 32 lower-case hex characters, got ${JSON.stringify(nonce)}`,
      );
    const row = await authRecord(this.db, nonce);
    if (!row) throw new RestError(ErrorCode.NOT_FOUND, `no authorisation record for nonce ${nonce}`);
    return {
      nonce: row.nonce,
      svcId: row.svcId,
      address: row.address,
      message: row.message,
      ecdsaSig: row.ecdsaSig,
      pqSig: toHex(row.pqSig),
      pqPublicKey: toHex(row.pqPublicKey),
      verifiedAt: row.verifiedAt.toISOString(),
    };
  }
}
