// The three independent ML-DSA-65 / ML-KEM-768 implementations of the interoperability matrix:
// OpenSSL 3.5 (node:crypto), @noble/post-quantum (TypeScript) and liboqs (C, as WebAssembly through
// @oqs/liboqs-js). Each says which secret-key forms it exports and imports: FIPS 204/203 allow the
// seed or the expanded key as the private key format.
import { randomBytes } from 'node:crypto';
import { createMLDSA65, createMLKEM768 } from '@oqs/liboqs-js';
import { mlDsa65 } from '@svckit/sdk/crypto';
import { mlKem768 } from '@svckit/sdk/crypto';
import { nobleMlDsa65KeygenFromSeed, nobleMlDsa65Sign, nobleMlDsa65Verify } from '@svckit/sdk/crypto/backends';
import {
  nobleMlKem768Decapsulate,
  nobleMlKem768Encapsulate,
  nobleMlKem768KeygenFromSeed,
} from '@svckit/sdk/crypto/backends';
import { opensslMlDsa65Sign, opensslMlDsa65Verify } from '@svckit/sdk/crypto/backends';
import { opensslMlKem768Decapsulate, opensslMlKem768Encapsulate } from '@svckit/sdk/crypto/backends';
import { installedPackageVersion, opensslVersion } from '@svckit/sdk/crypto/backends';

/** Peer ids. */
export type PeerId = 'openssl' | 'noble' | 'liboqs';

/** A secret key as handed from one peer to another: the seed, the expanded key, or both. */
export interface SecretForms {
  /** FIPS 204 ξ (32 bytes) or FIPS 203 d || z (64 bytes). */
  seed?: Uint8Array;
  /** FIPS 204 skEncode (4,032 bytes) or FIPS 203 dk (2,400 bytes). */
  expanded?: Uint8Array;
}

/** Thrown when a peer cannot take part in a check; the cell counts as not applicable, never as a pass. */
export class NotApplicable extends Error {
  /** Builds it; the message is the reason. */
  constructor(reason: string) {
    super(reason);
    this.name = 'NotApplicable';
  }
}

/** One implementation in the matrix. */
export interface InteropPeer {
  /** Id. */
  id: PeerId;
  /** Name for the evidence document. */
  name: string;
  /** Version of the implementation itself. */
  version: string;
  /** Implementation language. */
  language: string;
  /** Whether it signs and verifies with a non-empty FIPS 204 context. */
  supportsContext: boolean;
  /** A fresh ML-DSA-65 key pair. */
  dsaKeygen(): { publicKey: Uint8Array; secret: SecretForms };
  /** Signs with a secret key in a form it imports; NotApplicable otherwise. */
  dsaSign(secret: SecretForms, message: Uint8Array, context: Uint8Array): Uint8Array;
  /** Verifies; NotApplicable for a non-empty context it cannot take. */
  dsaVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array): boolean;
  /** A fresh ML-KEM-768 key pair. */
  kemKeygen(): { publicKey: Uint8Array; secret: SecretForms };
  /** Encapsulates to an encapsulation key. */
  kemEncapsulate(publicKey: Uint8Array): { ciphertext: Uint8Array; sharedSecret: Uint8Array };
  /** Decapsulates with a secret key in a form it imports; NotApplicable otherwise. */
  kemDecapsulate(secret: SecretForms, ciphertext: Uint8Array): Uint8Array;
  /** Frees resources (the WebAssembly instances). */
  close(): void;
}

function pick(secret: SecretForms, accepts: readonly ('seed' | 'expanded')[], who: string): Uint8Array {
  for (const form of accepts) {
    const bytes = secret[form];
    if (bytes) return bytes;
  }
  const offered =
    Object.keys(secret)
      .filter((k) => secret[k as keyof SecretForms])
      .join(' and ') || 'nothing';
  throw new NotApplicable(
    `${who} imports only the ${accepts.join(' or ')} secret key form; the producer exports ${offered}`,
  );
}

/** OpenSSL through node:crypto: exports only the seed, imports the seed or (in PKCS#8) the expanded key. */
export function opensslPeer(): InteropPeer {
  const who = 'OpenSSL (node:crypto)';
  return {
    id: 'openssl',
    name: 'OpenSSL (node:crypto)',
    version: opensslVersion(),
    language: 'C',
    supportsContext: true,
    dsaKeygen: () => {
      const { publicKey, secretKey } = mlDsa65.keygen();
      return { publicKey, secret: { seed: secretKey } };
    },
    dsaSign: (secret, message, context) =>
      opensslMlDsa65Sign(pick(secret, ['seed', 'expanded'], who), message, context),
    dsaVerify: (publicKey, message, signature, context) => opensslMlDsa65Verify(publicKey, message, signature, context),
    kemKeygen: () => {
      const { publicKey, secretKey } = mlKem768.keygen();
      return { publicKey, secret: { seed: secretKey } };
    },
    kemEncapsulate: (publicKey) => opensslMlKem768Encapsulate(publicKey),
    kemDecapsulate: (secret, ciphertext) =>
      opensslMlKem768Decapsulate(pick(secret, ['seed', 'expanded'], who), ciphertext),
    close: () => {},
  };
}

/**
 * @noble/post-quantum as the façade uses it: every call goes through the façade's noble backend
 * (src/crypto/backends/noble-ml-*.ts), so a fault there shows in the matrix. Key pairs come from a random
 * seed, so it exports both forms and imports both.
 */
export function noblePeer(): InteropPeer {
  return {
    id: 'noble',
    name: '@noble/post-quantum',
    version: installedPackageVersion('@noble/post-quantum'),
    language: 'TypeScript',
    supportsContext: true,
    dsaKeygen: () => {
      const seed = new Uint8Array(randomBytes(32));
      const { publicKey, secretKey } = nobleMlDsa65KeygenFromSeed(seed);
      return { publicKey, secret: { seed, expanded: secretKey } };
    },
    dsaSign: (secret, message, context) =>
      nobleMlDsa65Sign(pick(secret, ['expanded', 'seed'], 'noble'), message, context, { kind: 'hedged' }),
    dsaVerify: (publicKey, message, signature, context) => nobleMlDsa65Verify(publicKey, message, signature, context),
    kemKeygen: () => {
      const seed = new Uint8Array(randomBytes(64));
      const { publicKey, secretKey } = nobleMlKem768KeygenFromSeed(seed);
      return { publicKey, secret: { seed, expanded: secretKey } };
    },
    kemEncapsulate: (publicKey) => nobleMlKem768Encapsulate(publicKey),
    kemDecapsulate: (secret, ciphertext) =>
      nobleMlKem768Decapsulate(pick(secret, ['expanded', 'seed'], 'noble'), ciphertext),
    close: () => {},
  };
}

/** liboqs (WebAssembly): exports and imports the expanded key only, and signs with the empty context only. */
export async function liboqsPeer(): Promise<InteropPeer> {
  const dsa = await createMLDSA65();
  const kem = await createMLKEM768();
  const who = 'liboqs (@oqs/liboqs-js)';
  const noContext = (context: Uint8Array) => {
    if (context.length > 0) throw new NotApplicable(`${who} offers ML-DSA with the empty context only`);
  };
  return {
    id: 'liboqs',
    name: 'liboqs (@oqs/liboqs-js)',
    // The wrapper's version tracks the bundled liboqs release (its README: "0.15.x includes LibOQS 0.15.1").
    version: installedPackageVersion('@oqs/liboqs-js'),
    language: 'C (WebAssembly)',
    supportsContext: false,
    dsaKeygen: () => {
      const { publicKey, secretKey } = dsa.generateKeyPair();
      return { publicKey, secret: { expanded: secretKey } };
    },
    dsaSign: (secret, message, context) => {
      noContext(context);
      return dsa.sign(message, pick(secret, ['expanded'], who));
    },
    dsaVerify: (publicKey, message, signature, context) => {
      noContext(context);
      try {
        return dsa.verify(message, signature, publicKey);
      } catch {
        return false;
      }
    },
    kemKeygen: () => {
      const { publicKey, secretKey } = kem.generateKeyPair();
      return { publicKey, secret: { expanded: secretKey } };
    },
    kemEncapsulate: (publicKey) => {
      const { ciphertext, sharedSecret } = kem.encapsulate(publicKey);
      return { ciphertext, sharedSecret };
    },
    kemDecapsulate: (secret, ciphertext) => kem.decapsulate(ciphertext, pick(secret, ['expanded'], who)),
    close: () => {
      dsa.destroy();
      kem.destroy();
    },
  };
}
