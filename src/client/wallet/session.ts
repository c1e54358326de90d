/**
 * Session login (specs/wallet.openapi.yaml "Session flow"): register (idempotent, public values only,
 * D-030/D-069) -> POST /auth/challenge -> check the EIP-4361 message (D-043, D-071) -> sign it with the chain
 * key (`ecdsaSig`, D-035) and the ML-DSA-65 identity (`pqSig`, pure, empty context, D-044) -> POST
 * /auth/verify -> an ML-DSA-65 JWT (D-005, D-018), optionally checked against /.well-known/jwks.json.
 * The flow itself is browser-safe and lives in session-flow.ts; this file signs with the crypto façade.
 */
import type { AuthorizationRecord } from '../../../generated/wallet/types.gen.ts';
import { fromHex } from '../../crypto/index.ts';
import { familyOfAddress, svcIdOf } from './codec.ts';
import { signWithIdentity, verifyIdentitySignature } from './identity.ts';
import { loginWithSigner, type LoginOptions, type Session } from './session-flow.ts';
import { verifyChainMessage } from './sign-message.ts';

export {
  authorizedClient,
  checkChallengeMessage,
  loginWithSigner,
  registrationMessage,
  SessionError,
  verifySessionToken,
  type IdentitySigner,
  type LoginOptions,
  type Session,
} from './session-flow.ts';

/** challenge -> both signatures -> verify -> token, the identity signing through the crypto façade. */
export function login(options: LoginOptions): Promise<Session> {
  const { identity } = options;
  return loginWithSigner({
    ...options,
    identity: {
      svcId: identity.svcId,
      publicKey: identity.publicKey,
      sign: (message) => signWithIdentity(identity, message),
    },
  });
}

/** Re-checks an authorisation record with no trust in the service: svcId fingerprint, pqSig and ecdsaSig (D-081). */
export function verifyAuthorizationRecord(record: AuthorizationRecord): boolean {
  const publicKey = fromHex(record.pqPublicKey);
  if (svcIdOf(publicKey) !== record.svcId) return false;
  if (!record.message.includes(`Nonce: ${record.nonce}`) || !record.message.includes(`- svc:${record.svcId}`))
    return false;
  return (
    verifyIdentitySignature(publicKey, record.message, fromHex(record.pqSig)) &&
    verifyChainMessage(familyOfAddress(record.address), record.address, record.message, record.ecdsaSig)
  );
}
