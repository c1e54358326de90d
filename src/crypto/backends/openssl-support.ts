// Whether this Node's OpenSSL serves the post-quantum algorithms. The server and the harness run on Node 26
// (OpenSSL 3.5, D-228); the @svckit/sdk package also loads on Node 20 and 22 (D-229), whose node:crypto has no
// ML-DSA, ML-KEM or Argon2id (Node 22.23 bundles OpenSSL 3.5 but not those interfaces). There the modules load,
// and a call that needs them says why it cannot run.
import * as nodeCrypto from 'node:crypto';
import { CryptoError } from '../errors.ts';

/** True when node:crypto has ML-DSA, ML-KEM and Argon2id (Node 24.7 and later, with OpenSSL 3.5). */
export const OPENSSL_HAS_PQC =
  typeof (nodeCrypto as { encapsulate?: unknown }).encapsulate === 'function' &&
  typeof (nodeCrypto as { argon2?: unknown }).argon2 === 'function';

/** Throws CryptoError UNSUPPORTED, naming the runtime, when this Node lacks what `what` needs. */
export function requireOpensslPqc(what: string): void {
  if (OPENSSL_HAS_PQC) return;
  throw new CryptoError(
    'UNSUPPORTED',
    `${what} needs node:crypto's ML-DSA, ML-KEM and Argon2id (Node 24.7 or later; svckit uses Node 26); this is Node ${process.versions.node} with OpenSSL ${process.versions.openssl}`,
  );
}
