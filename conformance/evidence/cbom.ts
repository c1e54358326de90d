// The optional CycloneDX 1.6 CBOM (cryptography bill of materials) beside the evidence document: one
// cryptographic-asset component per algorithm the façade (src/crypto) offers, with its OID.
import type { HybridConstruction } from '@svckit/sdk/evidence';

/** A CycloneDX 1.6 JSON document (only the parts written here). */
export type CycloneDxDocument = Record<string, unknown>;

interface AssetSpec {
  ref: string;
  name: string;
  primitive: string;
  functions: string[];
  parameterSetIdentifier?: string;
  mode?: string;
  level?: number;
  oid?: string;
}

// OIDs: NIST CSOR (ML-DSA-65 2.16.840.1.101.3.4.3.18, ML-KEM-768 .4.4.2, AES-256-GCM .4.1.46,
// SHA3-256 .4.2.8), RFC 4231 / RFC 8018 (HMAC-SHA256 1.2.840.113549.2.9), RFC 8619 (HKDF-SHA256
// 1.2.840.113549.1.9.16.3.28). nistQuantumSecurityLevel is the NIST PQC category.
const ASSETS: readonly AssetSpec[] = [
  {
    ref: 'crypto/algorithm/ml-dsa-65',
    name: 'ML-DSA-65',
    primitive: 'signature',
    functions: ['keygen', 'sign', 'verify'],
    parameterSetIdentifier: '65',
    level: 3,
    oid: '2.16.840.1.101.3.4.3.18',
  },
  {
    ref: 'crypto/algorithm/ml-kem-768',
    name: 'ML-KEM-768',
    primitive: 'kem',
    functions: ['keygen', 'encapsulate', 'decapsulate'],
    parameterSetIdentifier: '768',
    level: 3,
    oid: '2.16.840.1.101.3.4.4.2',
  },
  {
    ref: 'crypto/algorithm/aes-256-gcm',
    name: 'AES-256-GCM',
    primitive: 'ae',
    functions: ['encrypt', 'decrypt'],
    parameterSetIdentifier: '256',
    mode: 'gcm',
    level: 5,
    oid: '2.16.840.1.101.3.4.1.46',
  },
  {
    ref: 'crypto/algorithm/hmac-sha256',
    name: 'HMAC-SHA256',
    primitive: 'mac',
    functions: ['tag', 'verify'],
    oid: '1.2.840.113549.2.9',
  },
  {
    ref: 'crypto/algorithm/sha3-256',
    name: 'SHA3-256',
    primitive: 'hash',
    functions: ['digest'],
    oid: '2.16.840.1.101.3.4.2.8',
  },
  {
    ref: 'crypto/algorithm/hkdf-sha256',
    name: 'HKDF-SHA256',
    primitive: 'kdf',
    functions: ['keyderive'],
    oid: '1.2.840.113549.1.9.16.3.28',
  },
];

/** Builds the CBOM for a product version and the hybrid constructions the evidence names. */
export function buildCbom(
  product: { name: string; version: string },
  hybrid: readonly HybridConstruction[],
  generated: string,
): CycloneDxDocument {
  const components = ASSETS.map((a) => ({
    type: 'cryptographic-asset',
    'bom-ref': a.ref,
    name: a.name,
    cryptoProperties: {
      assetType: 'algorithm',
      algorithmProperties: {
        primitive: a.primitive,
        ...(a.parameterSetIdentifier ? { parameterSetIdentifier: a.parameterSetIdentifier } : {}),
        ...(a.mode ? { mode: a.mode } : {}),
        executionEnvironment: 'software-plain-ram',
        certificationLevel: ['none'],
        cryptoFunctions: a.functions,
        ...(a.level ? { nistQuantumSecurityLevel: a.level } : {}),
      },
      ...(a.oid ? { oid: a.oid } : {}),
    },
  }));
  for (const h of hybrid) {
    components.push({
      type: 'cryptographic-asset',
      'bom-ref': `crypto/algorithm/${h.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/-+$/, '')}`,
      name: h.name,
      cryptoProperties: {
        assetType: 'algorithm',
        algorithmProperties: {
          primitive: h.purpose === 'key exchange' ? 'key-agree' : 'combiner',
          executionEnvironment: 'software-plain-ram',
          certificationLevel: ['none'],
          cryptoFunctions:
            h.purpose === 'key exchange'
              ? ['keygen', 'encapsulate', 'decapsulate']
              : ['encapsulate', 'decapsulate', 'encrypt', 'decrypt'],
          nistQuantumSecurityLevel: 3,
        },
      },
    });
  }
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: {
      timestamp: generated,
      component: { type: 'application', 'bom-ref': product.name, name: product.name, version: product.version },
    },
    components,
    dependencies: [{ ref: product.name, dependsOn: components.map((c) => c['bom-ref']) }],
  };
}
