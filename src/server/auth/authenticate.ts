/**
 * Authentication of institutional requests (spec "Authentication", A): `Authorization: Bearer svc_<API_KEY>`
 * or `Authorization: SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>` over `<timestamp_ms>:<METHOD>:<request_path>`.
 * D-225: a header ending in `.content-digest` signs `<timestamp_ms>:<METHOD>:<request_path>\n<Content-Digest>`,
 * and the body must match that Content-Digest.
 * spec: "missing or invalid credentials give 401; a key without permission for the operation gives 403."
 */
import { createHash, type KeyObject } from 'node:crypto';
import { importMlDsa65PublicKey, opensslMlDsa65Verify } from '@svckit/sdk/crypto/backends';
import type { Clock } from '@svckit/sdk/clock';
import type { Credential, CredentialStore, Permission } from '../../ledger/credentials.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { type BodyDigest, bodyMatches, CONTENT_DIGEST_BINDING, parseContentDigest } from './content-digest.ts';
import { LocalReplayMemory, type ReplayMemory } from './replay.ts';

/** spec: "The timestamp must be within plus or minus 30 seconds of server time." */
export const SIGNATURE_SKEW_MS = 30_000;

const BEARER = /^Bearer (svc_[A-Za-z0-9_-]{43})$/;
const MLDSA_SCHEME = 'SVC-MLDSA ';
const TIMESTAMP = /^\d{1,16}$/;

/**
 * The parts of `SVC-MLDSA <pubkey_hex 3904>.<timestamp_ms>.<sig_hex 6618>`, optionally followed by the D-225
 * binding suffix `.content-digest`, or undefined when malformed. Parsed
 * by position rather than with one regular expression over the 10.5 KB header, which alone cost 48 us per
 * request (a quarter of the verification): a hex part is valid exactly when it decodes to its full length,
 * since Buffer stops decoding at the first character that is not a hex digit. The key stays hex here: a key
 * seen before is not decoded again (D-178).
 */
function parseMldsaHeader(
  header: string,
): { keyHex: string; timestamp: string; signature: Buffer; bound: boolean } | undefined {
  const keyEnd = MLDSA_SCHEME.length + 3904;
  if (header.charCodeAt(keyEnd) !== 0x2e /* . */) return undefined;
  const timestampEnd = header.indexOf('.', keyEnd + 1);
  const bound = header.endsWith(CONTENT_DIGEST_BINDING);
  const signatureEnd = bound ? header.length - CONTENT_DIGEST_BINDING.length : header.length;
  if (timestampEnd === -1 || signatureEnd - timestampEnd - 1 !== 6618) return undefined;
  const timestamp = header.slice(keyEnd + 1, timestampEnd);
  if (!TIMESTAMP.test(timestamp)) return undefined;
  const signature = Buffer.from(header.slice(timestampEnd + 1, signatureEnd), 'hex');
  return signature.length === 3309
    ? { keyHex: header.slice(MLDSA_SCHEME.length, keyEnd), timestamp, signature, bound }
    : undefined;
}

/** A registered ML-DSA-65 key met before: its bytes and its OpenSSL key, parsed once (D-178). */
type KnownKey = { publicKey: Buffer; key: KeyObject };

/** At most this many registered keys are kept parsed; the oldest goes first. */
const KNOWN_KEYS = 1024;

const MALFORMED_MLDSA =
  '"Authorization" expected "SVC-MLDSA <pubkey_hex 3904>.<timestamp_ms>.<sig_hex 6618>" (ML-DSA-65 key and signature in hex), optionally followed by ".content-digest"';

/** The request parts a signature covers. */
export type SignedRequest = {
  method: string;
  target: string;
  authorization: string | undefined;
  /** The Content-Digest header, read when the SVC-MLDSA header binds it (D-225). */
  contentDigest?: string | string[] | undefined;
  /** The body's digests as parsed (D-225); absent for a request with no body. */
  body?: BodyDigest | undefined;
};

/** Verifies credentials; keeps accepted ML-DSA signatures for the skew window to refuse replays (D-076). */
export class Authenticator {
  /** Registered keys by their hex as sent (D-178); filled only after the registration is found (D-138). */
  private readonly knownKeys = new Map<string, KnownKey>();

  /**
   * Uses the credential store, the injectable clock and the memory of accepted signatures: this process's
   * by default, Redis's when several instances share it (D-170).
   */
  constructor(
    private readonly credentials: CredentialStore,
    private readonly clock: Clock,
    private readonly replays: ReplayMemory = new LocalReplayMemory(),
  ) {}

  /** Returns the caller's credential, or throws 401 saying what is wrong. */
  async authenticate(request: SignedRequest): Promise<Credential> {
    const header = request.authorization;
    if (!header)
      throw new RestError(
        ErrorCode.UNAUTHENTICATED,
        'missing Authorization header: expected "Bearer svc_<API_KEY>" or "SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>"',
      );
    if (header.startsWith('Bearer ')) {
      const match = BEARER.exec(header);
      if (!match)
        throw new RestError(
          ErrorCode.UNAUTHENTICATED,
          '"Authorization" expected "Bearer svc_" followed by 43 base64url characters',
        );
      const credential = await this.credentials.findApiKeyByToken(match[1]!);
      if (!credential) throw new RestError(ErrorCode.UNAUTHENTICATED, 'unknown or revoked API key');
      return credential;
    }
    if (header.startsWith(MLDSA_SCHEME)) return this.verifySignature(header, request);
    throw new RestError(ErrorCode.UNAUTHENTICATED, '"Authorization" expected the Bearer or SVC-MLDSA scheme');
  }

  private async verifySignature(header: string, request: SignedRequest): Promise<Credential> {
    const parts = parseMldsaHeader(header);
    if (!parts) throw new RestError(ErrorCode.UNAUTHENTICATED, MALFORMED_MLDSA);
    const { keyHex, timestamp, signature, bound } = parts;
    const now = this.clock.now();
    const skew = Number(timestamp) - now;
    if (Math.abs(skew) > SIGNATURE_SKEW_MS) {
      throw new RestError(
        ErrorCode.STALE_TIMESTAMP,
        `signature timestamp ${timestamp} is ${Math.round(skew / 1000)} s from server time ${now}; allowed ±30 s`,
      );
    }
    // D-225: the body is checked against its Content-Digest before any key is looked up or verified.
    const digestLine = bound ? `\n${checkContentDigest(request)}` : '';
    const known = this.knownKeys.get(keyHex);
    const publicKey = known?.publicKey ?? Buffer.from(keyHex, 'hex');
    if (publicKey.length !== 1952) throw new RestError(ErrorCode.UNAUTHENTICATED, MALFORMED_MLDSA);
    const method = request.method.toUpperCase();
    // D-029: the target as sent, or the same target without the leading /wallet (the reference example's form).
    const targets = [
      request.target,
      ...(request.target.startsWith('/wallet/') ? [request.target.slice('/wallet'.length)] : []),
    ];
    // D-138: the registration is read first (every request: a revoked key stops at once, D-129), so a key
    // nobody registered costs one indexed lookup and never an ML-DSA verification, nor a parsed key.
    const credential = await this.credentials.findMldsaKey(publicKey);
    if (!credential)
      throw new RestError(ErrorCode.UNAUTHENTICATED, 'this ML-DSA-65 public key is not registered (or was revoked)');
    const key = known?.key ?? this.remember(keyHex, publicKey);
    if (!key || !verifyAnyTarget(key, signature, `${timestamp}:${method}:`, targets, digestLine))
      throw new RestError(
        ErrorCode.INVALID_SIGNATURE,
        `the ML-DSA-65 signature does not verify over "${timestamp}:${method}:${request.target}"${bound ? ' and its Content-Digest' : ''}`,
      );
    // Remembered by digest: 32 bytes per signature instead of 6,618 hex characters (D-076 keeps them 60 s).
    if (!(await this.replays.firstUse(createHash('sha256').update(signature).digest('base64'), now)))
      throw new RestError(ErrorCode.REPLAYED_SIGNATURE, 'this signature was already used; sign every request afresh');
    return credential;
  }

  /** Parses a registered key once and keeps it (D-178); undefined when OpenSSL refuses the bytes. */
  private remember(keyHex: string, publicKey: Buffer): KeyObject | undefined {
    let key: KeyObject;
    try {
      key = importMlDsa65PublicKey(publicKey);
    } catch {
      return undefined;
    }
    if (this.knownKeys.size >= KNOWN_KEYS) this.knownKeys.delete(this.knownKeys.keys().next().value!);
    this.knownKeys.set(keyHex, { publicKey, key });
    return key;
  }
}

/**
 * The Content-Digest value a bound SVC-MLDSA header signs (D-225), once the body is known to match it; throws
 * 401 when the header is missing, unreadable, or names a digest the body does not have.
 */
function checkContentDigest(request: SignedRequest): string {
  const value = request.contentDigest;
  if (typeof value !== 'string')
    throw new RestError(
      ErrorCode.UNAUTHENTICATED,
      `"Content-Digest" is required: the SVC-MLDSA header ends in "${CONTENT_DIGEST_BINDING}", so its signature covers that header`,
    );
  const parsed = parseContentDigest(value);
  if ('error' in parsed) throw new RestError(ErrorCode.UNAUTHENTICATED, parsed.error);
  if (!bodyMatches(parsed.digests, request.body))
    throw new RestError(ErrorCode.INVALID_SIGNATURE, 'the request body does not match its "Content-Digest"');
  return value;
}

/**
 * True when the signature verifies (FIPS 204 ML-DSA.Verify, OpenSSL, empty context) over `prefix` + one of
 * `targets` + `suffix`, tried in order. D-178: on the calling thread; the hand-over to libuv's pool cost more
 * CPU than it saved the event loop.
 */
function verifyAnyTarget(
  key: KeyObject,
  signature: Buffer,
  prefix: string,
  targets: string[],
  suffix: string,
): boolean {
  // The crypto façade's OpenSSL verify: a malformed signature verifies as false.
  for (const target of targets)
    if (opensslMlDsa65Verify(key, Buffer.from(prefix + target + suffix, 'utf8'), signature)) return true;
  return false;
}

/** Throws 403 unless the credential holds `permission` (D-015). Accounts outside a restricted credential are 404 (D-128), decided by each handler. */
export function authorize(credential: Credential, permission: Permission): void {
  if (!credential.permissions.includes(permission)) {
    throw new RestError(ErrorCode.PERMISSION_DENIED, `this credential lacks the "${permission}" permission`);
  }
}
