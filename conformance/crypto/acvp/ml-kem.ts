// ACVP ML-KEM keyGen and encapDecap (FIPS 203), revisions FIPS203 and FIPS203-tr1 (whose decapsulation
// groups give the key as the seed d, z or as the expanded dk, "keyFormat"). dk may sit at test or
// group level (it moved between ACVP-Server releases).
import { concatBytes } from '@svckit/sdk/crypto/backends';
import { upperHex, type JsonObject } from '../vectors.ts';
import { mlKemAdapter } from './ml-kem-adapters.ts';
import {
  compareResponse,
  field,
  hexField,
  optionalHexField,
  parameterSetSkipReason,
  seededKeyGenOutcome,
  type AcvpCase,
  type AcvpSetHandler,
} from './handler.ts';

/** ML-KEM keyGen: (d, z) → ek, dk (FIPS 203 Algorithm 16). */
export const mlKemKeyGen: AcvpSetHandler = {
  label: 'ML-KEM keyGen',
  matches: (h) => h.algorithm === 'ML-KEM' && h.mode === 'keyGen',
  describeGroup: (g) => `${String(g.parameterSet)} ${String(g.testType ?? '')}`.trim(),
  groupSkipReason: parameterSetSkipReason,
  run(c, impl) {
    const result = mlKemAdapter(impl).keyGen(concatBytes(hexField(c, 'd'), hexField(c, 'z')));
    return seededKeyGenOutcome(
      c,
      { public: 'ek', secret: 'dk', seed: '(d, z)' },
      { publicKey: result.ek, secretKey: result.dk, secretMatches: result.dkMatches },
    );
  },
};

/** ML-KEM encapDecap: encapsulation, decapsulation and the two key checks (FIPS 203 §7.2, §7.3). */
export const mlKemEncapDecap: AcvpSetHandler = {
  label: 'ML-KEM encapDecap',
  matches: (h) => h.algorithm === 'ML-KEM' && h.mode === 'encapDecap',
  describeGroup: (g) =>
    [g.parameterSet, functionOf(g), g.keyFormat ? `${String(g.keyFormat)} key` : ''].filter(Boolean).join(' '),
  groupSkipReason: parameterSetSkipReason,
  run(c, impl) {
    const adapter = mlKemAdapter(impl);
    const tcId = c.test.tcId;
    switch (functionOf(c.group)) {
      case 'encapsulation': {
        const { c: ciphertext, k } = adapter.encapsulate(hexField(c, 'ek'), hexField(c, 'm'));
        return compareResponse(c, { tcId, c: upperHex(ciphertext), k: upperHex(k) }, ['c', 'k']);
      }
      case 'decapsulation':
        return compareResponse(c, { tcId, k: upperHex(adapter.decapsulate(decapsulationKey(c), hexField(c, 'c'))) }, [
          'k',
        ]);
      case 'decapsulationKeyCheck':
        return compareResponse(c, { tcId, testPassed: adapter.decapsulationKeyCheck(hexField(c, 'dk')) }, [
          'testPassed',
        ]);
      case 'encapsulationKeyCheck':
        return compareResponse(c, { tcId, testPassed: adapter.encapsulationKeyCheck(hexField(c, 'ek')) }, [
          'testPassed',
        ]);
      default:
        throw new Error(`unknown encapDecap function ${JSON.stringify(c.group.function)}`);
    }
  },
};

// Before "function" existed, AFT groups were encapsulation and VAL groups decapsulation.
function functionOf(group: JsonObject): string {
  if (typeof group.function === 'string') return group.function;
  return group.testType === 'AFT' ? 'encapsulation' : 'decapsulation';
}

// FIPS203-tr1: "keyFormat": "seed" gives d and z; "expanded" (and FIPS203) gives dk.
function decapsulationKey(c: AcvpCase): Uint8Array {
  const dk = optionalHexField(c, 'dk');
  if (dk && c.group.keyFormat !== 'seed') return dk;
  if (field(c, 'd') !== undefined && field(c, 'z') !== undefined)
    return concatBytes(hexField(c, 'd'), hexField(c, 'z'));
  if (dk) return dk;
  throw new Error(`test case ${String(c.test.tcId)} gives neither "dk" nor "d" and "z"`);
}
