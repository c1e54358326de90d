// Wycheproof test types, per implementation. A handler says whether the implementation accepted the
// case (and, for computations, produced the given outputs); run.ts applies the valid / invalid /
// acceptable semantics to that answer.
import { createCipheriv, createDecipheriv, createHmac, createPublicKey, verify } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { opensslMlDsa65Verify } from '@svckit/sdk/crypto/backends';
import { nobleMlDsa65Verify } from '@svckit/sdk/crypto/backends';
import { NotOffered } from '../implementations.ts';
import { mlKemAdapter } from '../acvp/ml-kem-adapters.ts';
import { hexBytes, type JsonObject } from '../vectors.ts';
import type { WycheproofHandler } from './handler-types.ts';
import { mlDsaSign, mlKemDecapsValidation, mlKemEncaps, mlKemKeyGen } from './pqc-handlers.ts';

const hex = (value: unknown, name: string) => hexBytes(value ?? '', name);

/** OpenSSL 3's GCM_IV_MAX_SIZE: 1024 bits. */
const OPENSSL_GCM_MAX_IV_BYTES = 128;

/** ML-DSA verification (mldsa_*_verify_test): group publicKey, tests msg, sig and optional ctx. */
const mlDsaVerify: WycheproofHandler = {
  type: 'MlDsaVerify',
  describeGroup: (file) => `${String(file.algorithm)} verify`,
  groupSkipReason: (file) =>
    file.algorithm === 'ML-DSA-65'
      ? undefined
      : `parameter set ${String(file.algorithm)} is out of scope (svckit implements ML-DSA-65)`,
  run(group, test, impl) {
    const args = [
      hex(group.publicKey, 'publicKey'),
      hex(test.msg, 'msg'),
      hex(test.sig, 'sig'),
      hex(test.ctx, 'ctx'),
    ] as const;
    const ok = impl === 'openssl' ? opensslMlDsa65Verify(...args) : nobleMlDsa65Verify(...args);
    return ok ? { accepted: true } : { accepted: false, detail: 'signature rejected' };
  },
};

/** ML-KEM (mlkem_*_test): seed → ek (compared when given), decapsulate c → K. */
const mlKem: WycheproofHandler = {
  type: 'MLKEMTest',
  describeGroup: (_file, group) => `${String(group.parameterSet)} keygen from seed and decapsulate`,
  groupSkipReason: (_file, group) =>
    group.parameterSet === 'ML-KEM-768'
      ? undefined
      : `parameter set ${String(group.parameterSet)} is out of scope (svckit implements ML-KEM-768)`,
  run(_group, test, impl) {
    const adapter = mlKemAdapter(impl);
    let k: Uint8Array;
    try {
      const seed = hex(test.seed, 'seed');
      if (seed.length !== 64) return { accepted: false, detail: `seed of ${seed.length} bytes refused` };
      const { ek } = adapter.keyGen(seed);
      if (typeof test.ek === 'string' && test.ek !== '' && Buffer.from(ek).toString('hex') !== test.ek.toLowerCase()) {
        return { accepted: false, detail: 'ek from the seed differs from the given ek' };
      }
      k = adapter.decapsulate(seed, hex(test.c, 'c'));
    } catch (error) {
      return { accepted: false, detail: `refused: ${(error as Error).message}` };
    }
    if (typeof test.K === 'string' && test.K !== '' && Buffer.from(k).toString('hex') !== test.K.toLowerCase()) {
      return { accepted: false, detail: 'K differs from the given K' };
    }
    return { accepted: true };
  },
};

/** MAC (mac_test_schema): HMAC-SHA256 only; the tag may be truncated to tagSize bits. */
const macTest: WycheproofHandler = {
  type: 'MacTest',
  describeGroup: (file, group) => `${String(file.algorithm)} key ${String(group.keySize)} tag ${String(group.tagSize)}`,
  groupSkipReason: (file) =>
    file.algorithm === 'HMACSHA256' ? undefined : `${String(file.algorithm)} is not among svckit's algorithms`,
  run(group, test, impl) {
    const key = hex(test.key, 'key');
    const msg = hex(test.msg, 'msg');
    const full =
      impl === 'openssl' ? new Uint8Array(createHmac('sha256', key).update(msg).digest()) : hmac(sha256, key, msg);
    const tag = Buffer.from(full.subarray(0, Number(group.tagSize) / 8)).toString('hex');
    return tag === String(test.tag).toLowerCase() ? { accepted: true } : { accepted: false, detail: 'tag differs' };
  },
};

/** AEAD (aead_test_schema): AES-GCM through OpenSSL; valid cases must encrypt to ct || tag and decrypt back. */
const aeadTest: WycheproofHandler = {
  type: 'AeadTest',
  describeGroup: (file, group) =>
    `${String(file.algorithm)} key ${String(group.keySize)} iv ${String(group.ivSize)} tag ${String(group.tagSize)}`,
  groupSkipReason: (file) =>
    file.algorithm === 'AES-GCM' ? undefined : `${String(file.algorithm)} is not among svckit's algorithms`,
  run(group, test, impl) {
    if (impl !== 'openssl')
      throw new NotOffered(
        'AES-GCM is not offered by the noble backend (@noble/post-quantum and @noble/hashes have no AES)',
      );
    const cipher = `aes-${Number(group.keySize)}-gcm` as 'aes-256-gcm';
    const tagBytes = Number(group.tagSize) / 8;
    const [key, iv, aad, msg, ct, tag] = (['key', 'iv', 'aad', 'msg', 'ct', 'tag'] as const).map((n) =>
      hex(test[n], n),
    ) as Uint8Array[];
    if ((iv as Uint8Array).length > OPENSSL_GCM_MAX_IV_BYTES) {
      // OpenSSL 3's GCM refuses IVs over 1024 bits when the cipher is set up: a parameter it does not
      // offer, like a pre-hash a library refuses. svckit's own nonces are 96 bits (SP 800-38D §8.2).
      throw new NotOffered(
        `GCM IVs longer than ${OPENSSL_GCM_MAX_IV_BYTES * 8} bits are not offered by OpenSSL 3 (it refuses them as invalid)`,
      );
    }
    try {
      const enc = createCipheriv(cipher, key as Uint8Array, iv as Uint8Array, { authTagLength: tagBytes });
      enc.setAAD(aad as Uint8Array);
      const sealed = Buffer.concat([enc.update(msg as Uint8Array), enc.final(), enc.getAuthTag()]);
      const decipher = createDecipheriv(cipher, key as Uint8Array, iv as Uint8Array, { authTagLength: tagBytes });
      decipher.setAAD(aad as Uint8Array);
      decipher.setAuthTag(tag as Uint8Array);
      const opened = Buffer.concat([decipher.update(ct as Uint8Array), decipher.final()]);
      if (!opened.equals(msg as Uint8Array)) return { accepted: false, detail: 'decryption gave other plaintext' };
      if (!sealed.equals(Buffer.concat([ct as Uint8Array, tag as Uint8Array])))
        return { accepted: false, detail: 'decrypted, but encryption gives another ct || tag' };
      return { accepted: true };
    } catch (error) {
      return { accepted: false, detail: `refused: ${(error as Error).message}` };
    }
  },
};

/** ECDSA verification (ecdsa_verify_schema): secp256k1 with SHA-256, DER signatures, as viem's wallet signatures use (D-035). */
const ecdsaVerify: WycheproofHandler = {
  type: 'EcdsaVerify',
  describeGroup: (_file, group) =>
    `ECDSA ${String((group.publicKey as JsonObject | undefined)?.curve)} ${String(group.sha)} DER`,
  groupSkipReason: (_file, group) =>
    (group.publicKey as JsonObject | undefined)?.curve === 'secp256k1' && group.sha === 'SHA-256'
      ? undefined
      : 'only ECDSA secp256k1 with SHA-256 is run',
  run(group, test, impl) {
    const msg = hex(test.msg, 'msg');
    const sig = hex(test.sig, 'sig');
    let ok: boolean;
    try {
      if (impl === 'openssl') {
        const key = createPublicKey({
          key: Buffer.from(hex(group.publicKeyDer, 'publicKeyDer')),
          format: 'der',
          type: 'spki',
        });
        ok = verify('sha256', msg, { key, dsaEncoding: 'der' }, sig);
      } else {
        const publicKey = hex((group.publicKey as JsonObject).uncompressed, 'publicKey.uncompressed');
        // Wycheproof's plain ECDSA semantics: a high s is valid, so lowS is off; DER must be strict.
        ok = secp256k1.verify(sig, msg, publicKey, { prehash: true, lowS: false, format: 'der' });
      }
    } catch (error) {
      return { accepted: false, detail: `refused: ${(error as Error).message}` };
    }
    return ok ? { accepted: true } : { accepted: false, detail: 'signature rejected' };
  },
};

/** Every handler, by group type. */
export const WYCHEPROOF_HANDLERS: readonly WycheproofHandler[] = [
  mlDsaVerify,
  mlDsaSign,
  mlKem,
  mlKemEncaps,
  mlKemKeyGen,
  mlKemDecapsValidation,
  macTest,
  aeadTest,
  ecdsaVerify,
];
