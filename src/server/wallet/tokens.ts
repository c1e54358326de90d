/**
 * Session tokens: ML-DSA-65-signed JWTs through `jose` (house rule 9; jose 6 signs and verifies alg
 * "ML-DSA-65" with Node 26 KeyObjects). Claims per D-005, lifetime 15 minutes with no refresh (D-018:
 * spec "No long-lived bearer tokens are handed out."), presented as `Authorization: Bearer`. Verification
 * allows exactly one algorithm, so `alg: none`, HS256 keyed with the public key and any other algorithm
 * confusion fail before a signature is looked at.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Clock } from '@svckit/sdk/clock';
import { ErrorCode, RestError } from '../http/errors.ts';
import type { ServiceKey } from './keys.ts';
import type { TokenScope as ContractTokenScope } from '@svckit/sdk/wallet';

/** D-018: exp = iat + 900. */
export const TOKEN_LIFETIME_SECONDS = 900;

/** D-127: a managed token (email and password sign-in) lives 5 minutes. */
export const MANAGED_TOKEN_LIFETIME_SECONDS = 300;
/** D-127: the JWS `typ` of a managed token; a session token's is "JWT", so neither passes for the other. */
export const MANAGED_TOKEN_TYPE = 'svckit-managed+jwt';

/**
 * D-209: what a session token opens. "owner": everything the identity may do; "dapp": what a site the wallet
 * signed in for may do, never the sync devices or the managed account and its guardian share.
 */
export type TokenScope = ContractTokenScope;

/** The D-005 claims set, with the D-209 `scope`. */
export type SessionClaims = {
  iss: string;
  aud: string;
  sub: string;
  addr: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  chl: string;
  scope: TokenScope;
};

/** Issues and checks session tokens with the service's current key (and, during a rotation, the previous one). */
export class SessionTokens {
  /** `keys[0]` signs; every key in `keys` verifies (the JWKS lists them all). */
  constructor(
    private readonly keys: ServiceKey[],
    private readonly clock: Clock,
    private readonly issuer: () => string,
  ) {}

  /** The JWK Set of /.well-known/jwks.json (D-018). */
  jwks() {
    return { keys: this.keys.map((k) => k.jwk) };
  }

  /** Signs a token for `sub` at `addr`, tied to the consumed challenge nonce `chl` (D-005), of `scope` (D-209). */
  async issue(
    sub: string,
    addr: string,
    chl: string,
    scope: TokenScope = 'owner',
  ): Promise<{ token: string; claims: SessionClaims }> {
    const key = this.keys[0]!;
    const iat = Math.floor(this.clock.now() / 1000);
    const iss = this.issuer();
    const claims: SessionClaims = {
      iss,
      aud: iss,
      sub,
      addr,
      iat,
      nbf: iat,
      exp: iat + TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
      chl,
      scope,
    };
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ML-DSA-65', typ: 'JWT', kid: key.kid })
      .sign(key.privateKey);
    return { token, claims };
  }

  /** Signs a managed token for `sub` (D-127): scope "managed", typ {@link MANAGED_TOKEN_TYPE}, 5 minutes. */
  async issueManaged(sub: string): Promise<{ token: string; exp: number }> {
    const key = this.keys[0]!;
    const iat = Math.floor(this.clock.now() / 1000);
    const iss = this.issuer();
    const exp = iat + MANAGED_TOKEN_LIFETIME_SECONDS;
    const claims = { iss, aud: iss, sub, scope: 'managed', iat, nbf: iat, exp, jti: randomUUID() };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ML-DSA-65', typ: MANAGED_TOKEN_TYPE, kid: key.kid })
      .sign(key.privateKey);
    return { token, exp };
  }

  /**
   * The svcId of the request's bearer token, a managed token (D-127) or an owner session token (D-209), or a
   * 401 (403 for a dapp session token).
   */
  async authenticateManaged(request: FastifyRequest): Promise<string> {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]*)$/.exec(header);
    if (match && headerType(match[1]!) === MANAGED_TOKEN_TYPE) {
      const payload = await this.check(match.slice(1).join('.'), MANAGED_TOKEN_TYPE, [
        'sub',
        'scope',
        'iat',
        'nbf',
        'exp',
        'jti',
      ]);
      if (payload.scope !== 'managed' || typeof payload.sub !== 'string')
        throw new RestError(ErrorCode.INVALID_TOKEN, 'invalid managed token: expected scope "managed"');
      return payload.sub;
    }
    return (await this.authenticateOwner(request)).sub;
  }

  /**
   * The claims of the request's session token when its scope is "owner" (D-209): the sync devices, the managed
   * account and its guardian share, and changes to owner bindings. A dapp token is 403.
   */
  async authenticateOwner(request: FastifyRequest): Promise<SessionClaims> {
    const claims = await this.authenticate(request);
    if (claims.scope !== 'owner')
      throw new RestError(
        ErrorCode.PERMISSION_DENIED,
        `the token has scope "${claims.scope}" (a token given to a site): this operation needs the identity's own session token (scope "owner")`,
      );
    return claims;
  }

  /** Checks a compact JWS and returns its claims, or throws 401 (TOKEN_EXPIRED or INVALID_TOKEN). */
  async verify(token: string): Promise<SessionClaims> {
    return claimsOf(await this.check(token, 'JWT', ['sub', 'addr', 'iat', 'nbf', 'exp', 'jti', 'chl']));
  }

  private async check(token: string, typ: string, requiredClaims: string[]): Promise<JWTPayload> {
    const iss = this.issuer();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = this.keys.find((k) => k.kid === header.kid);
          if (!key) throw new errors.JWKSNoMatchingKey();
          return key.publicKey;
        },
        {
          // The allow-list: only ML-DSA-65 (house rule 9 with jose's own checks; no "none", no HMAC).
          algorithms: ['ML-DSA-65'],
          issuer: iss,
          audience: iss,
          typ,
          requiredClaims,
          currentDate: new Date(this.clock.now()),
          clockTolerance: 0,
        },
      ));
    } catch (error) {
      if (error instanceof errors.JWTExpired) {
        const exp = Number((error.payload as JWTPayload).exp);
        throw new RestError(
          ErrorCode.TOKEN_EXPIRED,
          `session token expired at ${new Date(exp * 1000).toISOString()}; request a new challenge`,
        );
      }
      const why = error instanceof errors.JOSEError ? error.message : 'malformed token';
      throw new RestError(ErrorCode.INVALID_TOKEN, `invalid session token: ${why}`);
    }
    return payload;
  }

  /** The claims of the request's `Authorization: Bearer <jwt>` (D-018), or a 401. */
  async authenticate(request: FastifyRequest): Promise<SessionClaims> {
    const header = request.headers.authorization;
    if (!header)
      throw new RestError(
        ErrorCode.UNAUTHENTICATED,
        'missing session token: send Authorization: Bearer <jwt> obtained from POST /auth/verify',
      );
    const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/.exec(header);
    if (!match)
      throw new RestError(
        ErrorCode.INVALID_TOKEN,
        'malformed Authorization header: expected "Bearer <jwt>" with the session token from POST /auth/verify',
      );
    return this.verify(match[1]!);
  }
}

function headerType(encoded: string): unknown {
  try {
    return (JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { typ?: unknown }).typ;
  } catch {
    return undefined;
  }
}

function claimsOf(payload: JWTPayload): SessionClaims {
  const p = payload as Record<string, unknown>;
  for (const name of ['sub', 'addr', 'jti', 'chl'] as const) {
    if (typeof p[name] !== 'string')
      throw new RestError(ErrorCode.INVALID_TOKEN, `invalid session token: claim "${name}" expected a string`);
  }
  // D-209: only an explicit "owner" opens the owner's operations; a token without the claim opens what a dapp's does.
  return { ...(p as SessionClaims), scope: p.scope === 'owner' ? 'owner' : 'dapp' };
}
