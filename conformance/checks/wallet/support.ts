// Shared helpers of the wallet session API checks (surface E): calls to {wallet_api_url} that wait out the
// D-024 rate limit, validation of every answer against specs/wallet.openapi.yaml, and identities
// made in the check with real keys — ML-DSA-65 from the crypto façade, secp256k1 chain keys from viem and
// @noble/curves — so any target can be exercised without trusting it to sign for us.
import type { RegisterKey } from '@svckit/sdk/wallet';
import { registrationMessage } from '@svckit/sdk/wallet-library';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58check, base64, bech32 } from '@scure/base';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { mlDsa65, sha3_256, toHex, type MlDsa65KeyPair } from '@svckit/sdk/crypto';
import type { CheckContext } from '../../catalogue.ts';
import { PROBE_LIMIT, request, type HttpResult } from '../../http.ts';
import { withinRun } from '../../run-scope.ts';
import type { Capability, Target } from '../../targets/target.ts';
import { checkDefiner, Unavailable } from '../define.ts';
import { operationProblems } from '../support/openapi.ts';

/** Checks on the wallet origin alone. */
export const WALLET: readonly Capability[] = ['wallet'];
/** Checks that also drive the reference stack's clock. */
export const WALLET_REF: readonly Capability[] = ['wallet', 'reference'];
/** Checks that record a KYC-verified owner with the administrator token (D-083). */
export const WALLET_ADMIN: readonly Capability[] = ['wallet', 'admin'];

/** Defines a surface-E check (needs: WALLET unless it names its own). */
export const defineCheck = checkDefiner({ surface: 'E', needs: WALLET });

/** Options of one wallet call. */
export type CallOptions = { body?: unknown; token?: string; headers?: Record<string, string>; retry429?: boolean };

/**
 * A call to `{wallet_api_url}<path>`; a 429 (D-024) is waited out per Retry-After and sent again by the HTTP layer
 * (D-180) unless `retry429` is false, which also sends it at once, unpaced (the rate-limit check's burst).
 */
export function call(target: Target, method: string, path: string, options: CallOptions = {}): Promise<HttpResult> {
  if (!target.wallet) throw new Unavailable('the target has no wallet origin');
  const headers = { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers };
  const send = () =>
    request(target, new URL(path.replace(/^\//, ''), target.wallet as URL), {
      method,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.retry429 === false ? PROBE_LIMIT : {}),
    });
  return options.retry429 === false ? send() : withinRun(send);
}

/** Problems with an answer to `operation` (`METHOD /route` of the contract): another status, an undeclared status, a body off-schema. */
export function problems(
  ctx: CheckContext,
  operation: string,
  res: HttpResult,
  status: number,
  what = '',
): Promise<string[]> {
  return operationProblems(ctx.specsDir, 'wallet.openapi.yaml', operation, res, status, what);
}

/** Problems unless the answer is `status` with error code `code` (and a contract-valid body). */
export async function expectError(
  ctx: CheckContext,
  operation: string,
  res: HttpResult,
  status: number,
  code: string,
  what = '',
): Promise<string[]> {
  const found = await problems(ctx, operation, res, status, what);
  const got = (res.json as { code?: unknown } | undefined)?.code;
  return found.length || got === code
    ? found
    : [`${operation}${what ? ` (${what})` : ''}: expected code ${code}, got ${JSON.stringify(got)}`];
}

/** Signs the challenge message with the chain key (D-035 scheme of the address). */
export type ChainSigner = { address: string; sign(message: string): Promise<string> };

const utf8 = (s: string) => new TextEncoder().encode(s);
const b58c = base58check(sha256);

/** An EVM (and native) signer: EIP-191 personal_sign through viem. */
export function evmSigner(): ChainSigner {
  const account = privateKeyToAccount(generatePrivateKey());
  return { address: account.address, sign: (message) => account.signMessage({ message }) };
}

/** A Bitcoin P2WPKH signer: BIP-137 with header 39 + recovery id (D-035). */
export function bitcoinSigner(): ChainSigner {
  const sk = secp256k1.utils.randomSecretKey();
  const program = ripemd160(sha256(secp256k1.getPublicKey(sk, true)));
  const address = bech32.encode('bc', [0, ...bech32.toWords(program)]);
  const varint = (n: number) => (n < 0xfd ? [n] : [0xfd, n & 0xff, n >> 8]);
  return {
    address,
    sign: async (message) => {
      const magic = utf8('Bitcoin Signed Message:\n');
      const body = utf8(message);
      const digest = sha256(
        sha256(Uint8Array.from([...varint(magic.length), ...magic, ...varint(body.length), ...body])),
      );
      const sig = secp256k1.sign(digest, sk, { prehash: false, format: 'recovered' });
      return base64.encode(Uint8Array.of(39 + sig[0]!, ...sig.subarray(1)));
    },
  };
}

/** A Tron signer: TIP-191 over keccak-256, r‖s‖v with v = 27 + recovery id (D-035). */
export function tronSigner(): ChainSigner {
  const sk = secp256k1.utils.randomSecretKey();
  const hash = keccak_256(secp256k1.getPublicKey(sk, false).subarray(1));
  const address = b58c.encode(Uint8Array.of(0x41, ...hash.subarray(12)));
  return {
    address,
    sign: async (message) => {
      const body = utf8(message);
      const digest = keccak_256(Uint8Array.from([...utf8(`\x19TRON Signed Message:\n${body.length}`), ...body]));
      const sig = secp256k1.sign(digest, sk, { prehash: false, format: 'recovered' });
      return `0x${toHex(sig.subarray(1))}${(27 + sig[0]!).toString(16)}`;
    },
  };
}

/** A wallet identity made in the check: an ML-DSA-65 key, its svcId (D-031) and a chain key. */
export type Identity = { pq: MlDsa65KeyPair; svcId: string; chain: ChainSigner };

/** A fresh identity; the chain key defaults to an EVM one. */
export function newIdentity(chain: ChainSigner = evmSigner()): Identity {
  const pq = mlDsa65.keygen();
  return { pq, svcId: toHex(sha3_256(pq.publicKey).subarray(0, 8)), chain };
}

/** pqSig: pure ML-DSA-65 over the UTF-8 message, hex (D-044). */
export const pqSign = (identity: Identity, message: string) =>
  toHex(mlDsa65.sign(identity.pq.secretKey, utf8(message)));

/** POST /wallets/register with the identity's public values. */
export function register(target: Target, identity: Identity, extra: Record<string, unknown> = {}): Promise<HttpResult> {
  // The proof's time is the stack's clock where the harness can read it (checks move that clock forward).
  const issuedAt = new Date(target.reference?.now?.() ?? Date.now()).toISOString();
  return call(target, 'POST', '/wallets/register', {
    body: {
      ...registrationProof(identity, (extra.keys as RegisterKey[] | undefined) ?? ownKeys(identity), issuedAt),
      ...extra,
    },
  });
}

/** The identity's own chain address as a registration key: a challenge is issued only for one (D-208). */
export function ownKeys(identity: Identity): RegisterKey[] {
  const { address } = identity.chain;
  const chainId = address.startsWith('0x') ? '1111111' : address.startsWith('bc1') ? 'bitcoin' : 'tron';
  return [{ chainId, address }];
}

/**
 * The signed registration body (D-147): svcId, public key, the keys (by default the identity's own chain
 * address, D-208), issuedAt now and the identity key's proof over them.
 */
export function registrationProof(
  identity: Identity,
  keys: RegisterKey[] | undefined = ownKeys(identity),
  issuedAt = new Date().toISOString(),
): Record<string, unknown> {
  const proof = toHex(
    mlDsa65.sign(
      identity.pq.secretKey,
      utf8(registrationMessage({ svcId: identity.svcId, issuedAt, ...(keys ? { keys } : {}) })),
    ),
  );
  return {
    svcId: identity.svcId,
    pqPublicKey: toHex(identity.pq.publicKey),
    ...(keys ? { keys } : {}),
    issuedAt,
    proof,
  };
}

/** POST /auth/challenge; throws unless 200. */
export async function challenge(
  target: Target,
  identity: Identity,
): Promise<{ nonce: string; message: string; res: HttpResult }> {
  const res = await call(target, 'POST', '/auth/challenge', {
    body: { address: identity.chain.address, svcId: identity.svcId },
  });
  if (res.status !== 200)
    throw new Error(`POST /auth/challenge: expected 200, got ${res.status} ${res.text.slice(0, 200)}`);
  return { ...(res.json as { nonce: string; message: string }), res };
}

/** A fresh identity (chain key: `chain`), registered, and a challenge issued to it. */
export async function challenged(
  target: Target,
  chain?: ChainSigner,
): Promise<{ identity: Identity; nonce: string; message: string }> {
  const identity = newIdentity(chain);
  await register(target, identity);
  const { nonce, message } = await challenge(target, identity);
  return { identity, nonce, message };
}

/** POST /auth/verify with explicit signatures. */
export function verify(target: Target, identity: Identity, ecdsaSig: string, pqSig: string): Promise<HttpResult> {
  return call(target, 'POST', '/auth/verify', {
    body: { address: identity.chain.address, svcId: identity.svcId, ecdsaSig, pqSig },
  });
}

/** Register (if needed), challenge, both signatures, verify: the session token and what it was made from. */
export async function login(
  target: Target,
  identity: Identity = newIdentity(),
): Promise<{ identity: Identity; token: string; nonce: string; message: string }> {
  const reg = await register(target, identity);
  if (reg.status !== 200)
    throw new Error(`POST /wallets/register: expected 200, got ${reg.status} ${reg.text.slice(0, 200)}`);
  const { nonce, message } = await challenge(target, identity);
  const res = await verify(target, identity, await identity.chain.sign(message), pqSign(identity, message));
  if (res.status !== 200)
    throw new Error(`POST /auth/verify: expected 200, got ${res.status} ${res.text.slice(0, 200)}`);
  return { identity, token: (res.json as { token: string }).token, nonce, message };
}

/** The decoded JSON of a JWT segment (0: header, 1: payload). */
export const jwtPart = (token: string, i: 0 | 1) =>
  JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8')) as Record<string, unknown>;
