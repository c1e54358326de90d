// ACVP ML-DSA keyGen, sigGen and sigVer (FIPS 204), revisions FIPS204 and FIPS204-tr1 (whose sigGen
// groups give the secret key as a seed or as the expanded key, "keyFormat"). Older layouts that keep
// pk or sk at group level are read too (see field()).
import type { RandomnessChoice } from '@svckit/sdk/crypto/backends';
import { upperHex, type JsonObject } from '../vectors.ts';
import { mlDsaAdapter } from './ml-dsa-adapters.ts';
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

const isMlDsa = (mode: string) => (h: { algorithm: string; mode: string | undefined }) =>
  h.algorithm === 'ML-DSA' && h.mode === mode;

/** ML-DSA keyGen: seed ξ → pk, sk (FIPS 204 Algorithm 6). */
export const mlDsaKeyGen: AcvpSetHandler = {
  label: 'ML-DSA keyGen',
  matches: isMlDsa('keyGen'),
  describeGroup: (g) => `${String(g.parameterSet)} ${String(g.testType ?? '')}`.trim(),
  groupSkipReason: parameterSetSkipReason,
  run(c, impl) {
    const result = mlDsaAdapter(impl).keyGen(hexField(c, 'seed'));
    return seededKeyGenOutcome(
      c,
      { public: 'pk', secret: 'sk', seed: 'the seed' },
      { publicKey: result.pk, secretKey: result.sk, secretMatches: result.skMatches },
    );
  },
};

/** ML-DSA sigGen: external (pure or pre-hash) and internal (message or external mu), deterministic or with rnd. */
export const mlDsaSigGen: AcvpSetHandler = {
  label: 'ML-DSA sigGen',
  matches: isMlDsa('sigGen'),
  describeGroup: describeSignatureGroup,
  groupSkipReason: parameterSetSkipReason,
  run(c, impl) {
    const adapter = mlDsaAdapter(impl);
    const sk = secretKey(c);
    const randomness = randomnessOf(c);
    let signature: Uint8Array;
    if (signatureInterface(c) === 'internal') {
      const externalMu = c.group.externalMu === true;
      signature = adapter.signInternal(sk, hexField(c, externalMu ? 'mu' : 'message'), externalMu, randomness);
    } else if (preHashMode(c) === 'preHash') {
      signature = adapter.signPrehash(sk, hexField(c, 'message'), context(c), String(field(c, 'hashAlg')), randomness);
    } else {
      signature = adapter.signPure(sk, hexField(c, 'message'), context(c), randomness);
    }
    return compareResponse(c, { tcId: c.test.tcId, signature: upperHex(signature) }, ['signature']);
  },
};

/** ML-DSA sigVer: external (pure or pre-hash) and internal (message or external mu). */
export const mlDsaSigVer: AcvpSetHandler = {
  label: 'ML-DSA sigVer',
  matches: isMlDsa('sigVer'),
  describeGroup: describeSignatureGroup,
  groupSkipReason: parameterSetSkipReason,
  run(c, impl) {
    const adapter = mlDsaAdapter(impl);
    const pk = hexField(c, 'pk');
    const signature = hexField(c, 'signature');
    let valid: boolean;
    if (signatureInterface(c) === 'internal') {
      const externalMu = c.group.externalMu === true;
      valid = adapter.verifyInternal(pk, hexField(c, externalMu ? 'mu' : 'message'), signature, externalMu);
    } else if (preHashMode(c) === 'preHash') {
      valid = adapter.verifyPrehash(pk, hexField(c, 'message'), signature, context(c), String(field(c, 'hashAlg')));
    } else {
      valid = adapter.verifyPure(pk, hexField(c, 'message'), signature, context(c));
    }
    return compareResponse(c, { tcId: c.test.tcId, testPassed: valid }, ['testPassed']);
  },
};

function describeSignatureGroup(g: JsonObject): string {
  const parts = [String(g.parameterSet), String(g.signatureInterface ?? 'external')];
  if (g.signatureInterface === 'internal') parts.push(g.externalMu === true ? 'external mu' : 'message');
  else parts.push(String(g.preHash ?? 'pure'));
  if (typeof g.deterministic === 'boolean') parts.push(g.deterministic ? 'deterministic' : 'rnd');
  if (typeof g.keyFormat === 'string') parts.push(`${g.keyFormat} key`);
  return parts.join(' ');
}

function signatureInterface(c: AcvpCase): 'internal' | 'external' {
  return c.group.signatureInterface === 'internal' ? 'internal' : 'external';
}

function preHashMode(c: AcvpCase): 'pure' | 'preHash' {
  return field(c, 'preHash') === 'preHash' ? 'preHash' : 'pure';
}

function context(c: AcvpCase): Uint8Array {
  return optionalHexField(c, 'context') ?? new Uint8Array(0);
}

// FIPS204-tr1 "keyFormat": "seed" groups give the 32-byte seed, "expanded" groups the 4,032-byte sk.
function secretKey(c: AcvpCase): Uint8Array {
  const sk = optionalHexField(c, 'sk');
  if (sk && c.group.keyFormat !== 'seed') return sk;
  const seed = optionalHexField(c, 'seed');
  if (seed) return seed;
  if (sk) return sk;
  throw new Error(`test case ${String(c.test.tcId)} gives neither "sk" nor "seed"`);
}

function randomnessOf(c: AcvpCase): RandomnessChoice {
  if (c.group.deterministic === true) return { kind: 'deterministic' };
  const rnd = optionalHexField(c, 'rnd');
  if (!rnd) throw new Error(`test case ${String(c.test.tcId)} is not deterministic but gives no "rnd"`);
  return { kind: 'given', rnd };
}
