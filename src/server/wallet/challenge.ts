/**
 * The sign-in challenge. Issue: "The nonce is fresh (at least 128 bits), single-use, and expires"; D-043:
 * 128 random bits as 32 lower-case hex, valid 5 minutes, and an EIP-4361 message binding domain, address,
 * chain (D-071), nonce, times and `svc:{svcId}`.
 */
import { randomBytes } from 'node:crypto';

/** D-043: a challenge is valid 5 minutes. */
export const CHALLENGE_LIFETIME_MS = 5 * 60_000;

/** A fresh 128-bit nonce from the CSPRNG, 32 lower-case hex characters. */
export const freshNonce = () => randomBytes(16).toString('hex');

/** The D-043 message, LF line ends, exactly as the client signs it. */
export function challengeMessage(input: {
  origin: string;
  address: string;
  chainId: string;
  nonce: string;
  issuedAt: number;
  svcId: string;
}): string {
  const url = new URL(input.origin);
  return [
    `${url.host} wants you to sign in with your account:`,
    input.address,
    '',
    'Sign in to svckit wallet session.',
    '',
    `URI: ${url.origin}`,
    'Version: 1',
    `Chain ID: ${input.chainId}`,
    `Nonce: ${input.nonce}`,
    `Issued At: ${new Date(input.issuedAt).toISOString()}`,
    `Expiration Time: ${new Date(input.issuedAt + CHALLENGE_LIFETIME_MS).toISOString()}`,
    'Resources:',
    `- svc:${input.svcId}`,
  ].join('\n');
}
