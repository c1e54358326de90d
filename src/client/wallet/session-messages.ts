/**
 * The texts of session login that both the Node library (session.ts) and the browser extension use
 * (specs/wallet.openapi.yaml "Session flow"): the registration proof text (D-147) and the check of the
 * EIP-4361 challenge before signing it (D-043, D-071). Browser-safe (no node: imports).
 */
import type { RegisterKey } from '../../../generated/wallet/types.gen.ts';
import { SvcError } from '../../errors.ts';
import { familyOfAddress } from './codec.ts';

/** Thrown when a step of the login fails or the server's answer does not check out. */
export class SessionError extends SvcError<'LOGIN_FAILED'> {
  override name = 'SessionError';
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** The server's answer body, when there was one. */
  readonly body?: unknown;
  /** `status` and `body` are the server's answer, when it answered. */
  constructor(message: string, status?: number, body?: unknown) {
    super('LOGIN_FAILED', message);
    this.status = status;
    this.body = body;
  }
}

/** D-147: the text the identity key signs to register (`proof`), LF line ends, keys in request order. */
export function registrationMessage(input: { svcId: string; issuedAt: string; keys?: readonly RegisterKey[] }): string {
  return [
    'svckit wallet registration',
    `svcId: ${input.svcId}`,
    `Issued At: ${input.issuedAt}`,
    'Keys:',
    ...(input.keys ?? []).map((k) => `- ${k.chainId} ${k.address}`),
  ].join('\n');
}

/**
 * Checks the challenge message before signing it (EIP-4361 §"Verifying": the wallet must check the domain):
 * layout of D-043, the address, `Chain ID` of D-071, the nonce, `svc:{svcId}` and an expiry in the future.
 */
export function checkChallengeMessage(
  message: string,
  expected: { domain: string; address: string; svcId: string; nonce: string; now?: Date },
): void {
  const lines = message.split('\n');
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
  const fail = (what: string) => {
    throw new SessionError(`refusing to sign the challenge: ${what}`);
  };
  if (lines[0] !== `${expected.domain} wants you to sign in with your account:`)
    fail(`it names domain "${lines[0]?.split(' ')[0]}", expected "${expected.domain}"`);
  if (lines[1] !== expected.address) fail(`it names address ${lines[1]}, expected ${expected.address}`);
  if (field('Nonce') !== expected.nonce) fail('its nonce differs from the challenge nonce');
  if (!lines.includes(`- svc:${expected.svcId}`)) fail(`it does not name svc:${expected.svcId}`);
  const family = familyOfAddress(expected.address);
  const chain = family === 'evm' ? '1111111' : family;
  if (field('Chain ID') !== chain) fail(`Chain ID ${field('Chain ID')}, expected ${chain} (D-071)`);
  const expiry = Date.parse(field('Expiration Time') ?? '');
  if (!Number.isFinite(expiry) || expiry <= (expected.now ?? new Date()).getTime())
    fail('it has expired or has no Expiration Time');
}
