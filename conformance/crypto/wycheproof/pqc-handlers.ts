// Wycheproof test types for ML-DSA signing and ML-KEM encapsulation, key generation and decapsulation
// validation (C2SP schemas mldsa_sign_{seed,noseed}_schema, mlkem_encaps_test_schema,
// mlkem_keygen_seed_test_schema, mlkem_semi_expanded_decaps_test_schema). Each handler reads the group
// type named in the file, never the file name; what a backend does not offer is a NotOffered skip.
import { mlDsaAdapter } from '../acvp/ml-dsa-adapters.ts';
import { mlKemAdapter } from '../acvp/ml-kem-adapters.ts';
import { hexBytes, type JsonObject } from '../vectors.ts';
import type { Verdict, WycheproofHandler } from './handler-types.ts';

const hex = (value: unknown, name: string) => hexBytes(value ?? '', name);
const sameHex = (bytes: Uint8Array, expected: unknown) =>
  Buffer.from(bytes).toString('hex') === String(expected).toLowerCase();
const refused = (error: unknown): Verdict => ({ accepted: false, detail: `refused: ${(error as Error).message}` });

const dsaSkip = (file: JsonObject) =>
  file.algorithm === 'ML-DSA-65'
    ? undefined
    : `parameter set ${String(file.algorithm)} is out of scope (svckit implements ML-DSA-65)`;
const kemSkip = (_file: JsonObject, group: JsonObject) =>
  group.parameterSet === 'ML-KEM-768'
    ? undefined
    : `parameter set ${String(group.parameterSet)} is out of scope (svckit implements ML-KEM-768)`;

/**
 * ML-DSA signing (MlDsaSign). The key is a 32-byte seed (`privateSeed`, mldsa_sign_seed_schema) or an
 * encoded private key (`privateKey`, mldsa_sign_noseed_schema). A test with `msg` signs through the
 * external interface with `ctx` (empty when absent); without `msg` (flag Internal) it signs `mu` through
 * ML-DSA.Sign_internal. `rnd` absent means deterministic signing (rnd = {0}^32). A valid case must give
 * exactly `sig`; an invalid one (bad key length, out-of-range key, context over 255 bytes) must be refused.
 */
export const mlDsaSign: WycheproofHandler = {
  type: 'MlDsaSign',
  describeGroup: (file, group) => `${String(file.algorithm)} sign, ${'privateSeed' in group ? 'seed' : 'expanded'} key`,
  groupSkipReason: dsaSkip,
  run(group, test, impl) {
    const adapter = mlDsaAdapter(impl);
    const randomness =
      typeof test.rnd === 'string'
        ? { kind: 'given' as const, rnd: hex(test.rnd, 'rnd') }
        : { kind: 'deterministic' as const };
    let sig: Uint8Array;
    try {
      let sk: Uint8Array;
      if ('privateSeed' in group) {
        // A seed of the wrong length is the backend's to refuse (IncorrectPrivateKeyLength).
        const seed = hex(group.privateSeed, 'privateSeed');
        const keys = adapter.keyGen(seed);
        if (typeof group.publicKey === 'string' && !sameHex(keys.pk, group.publicKey))
          return { accepted: false, detail: 'public key from the seed differs from publicKey' };
        sk = keys.sk ?? seed;
      } else {
        sk = hex(group.privateKey, 'privateKey');
      }
      sig =
        typeof test.msg === 'string'
          ? adapter.signPure(sk, hex(test.msg, 'msg'), hex(test.ctx, 'ctx'), randomness)
          : adapter.signInternal(sk, hex(test.mu, 'mu'), true, randomness);
    } catch (error) {
      if ((error as Error).name === 'NotOffered') throw error;
      return refused(error);
    }
    return sameHex(sig, test.sig) ? { accepted: true } : { accepted: false, detail: 'signature differs from sig' };
  },
};

/** ML-KEM encapsulation (MLKEMEncapsTest): Encaps_internal(ek, m) must give c and K; an ek failing the FIPS 203 §7.2 modulus check must be refused. */
export const mlKemEncaps: WycheproofHandler = {
  type: 'MLKEMEncapsTest',
  describeGroup: (_file, group) => `${String(group.parameterSet)} encapsulation`,
  groupSkipReason: kemSkip,
  run(_group, test, impl) {
    const adapter = mlKemAdapter(impl);
    let out: { c: Uint8Array; k: Uint8Array };
    try {
      out = adapter.encapsulate(hex(test.ek, 'ek'), hex(test.m, 'm'));
    } catch (error) {
      if ((error as Error).name === 'NotOffered') throw error;
      return refused(error);
    }
    if (!sameHex(out.c, test.c)) return { accepted: false, detail: 'c differs' };
    return sameHex(out.k, test.K) ? { accepted: true } : { accepted: false, detail: 'K differs' };
  },
};

/** ML-KEM key generation from a seed (MLKEMKeyGen): KeyGen_internal(d, z) on seed = d || z must give ek and the expanded dk. */
export const mlKemKeyGen: WycheproofHandler = {
  type: 'MLKEMKeyGen',
  describeGroup: (_file, group) => `${String(group.parameterSet)} key generation from seed`,
  groupSkipReason: kemSkip,
  run(_group, test, impl) {
    let keys: ReturnType<ReturnType<typeof mlKemAdapter>['keyGen']>;
    try {
      keys = mlKemAdapter(impl).keyGen(hex(test.seed, 'seed'));
    } catch (error) {
      return refused(error);
    }
    if (!sameHex(keys.ek, test.ek)) return { accepted: false, detail: 'ek differs' };
    const dk = hex(test.dk, 'dk');
    const dkOk = keys.dk ? sameHex(keys.dk, test.dk) : (keys.dkMatches?.(dk) ?? false);
    return dkOk ? { accepted: true } : { accepted: false, detail: 'dk differs' };
  },
};

/**
 * ML-KEM decapsulation validation (MLKEMDecapsValidationTest): the expanded dk must pass the FIPS 203
 * §7.3 checks (length, H(ek) hash) and c must have the ciphertext length, else the input is refused;
 * a valid case must decapsulate to K.
 */
export const mlKemDecapsValidation: WycheproofHandler = {
  type: 'MLKEMDecapsValidationTest',
  describeGroup: (_file, group) => `${String(group.parameterSet)} decapsulation with an expanded key`,
  groupSkipReason: kemSkip,
  run(_group, test, impl) {
    const adapter = mlKemAdapter(impl);
    let k: Uint8Array;
    try {
      const dk = hex(test.dk, 'dk');
      if (!adapter.decapsulationKeyCheck(dk))
        return { accepted: false, detail: 'decapsulation key check (FIPS 203 §7.3) failed' };
      k = adapter.decapsulate(dk, hex(test.c, 'c'));
    } catch (error) {
      return refused(error);
    }
    if (typeof test.K === 'string' && !sameHex(k, test.K)) return { accepted: false, detail: 'K differs' };
    return { accepted: true };
  },
};
