// PKCS#8 wrapping of ML-DSA and ML-KEM private keys, so OpenSSL (node:crypto) can import the FIPS 204
// and FIPS 203 expanded secret keys, which it takes only inside PKCS#8 (there is no raw expanded
// import). Layouts from the IETF LAMPS drafts for ML-DSA and ML-KEM in X.509:
//   ML-DSA-PrivateKey ::= CHOICE { seed [0] OCTET STRING (32), expandedKey OCTET STRING,
//                                  both SEQUENCE { seed OCTET STRING, expandedKey OCTET STRING } }
//   ML-KEM-PrivateKey has the same shape with a 64-byte seed (d || z).
// OpenSSL checks a "both" key by expanding the seed and comparing with the given expanded key, which
// is how the ACVP keyGen runner asks OpenSSL whether its expansion equals the expected one.
import { concatBytes } from '../bytes.ts';

/** OIDs of the two parameter sets in scope (NIST CSOR, 2.16.840.1.101.3.4.3.18 and .4.4.2). */
export const ALGORITHM_OIDS = {
  'ml-dsa-65': [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12],
  'ml-kem-768': [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x02],
} as const;

/** The key types this module wraps. */
export type WrappedKeyType = keyof typeof ALGORITHM_OIDS;

/** DER of a PKCS#8 PrivateKeyInfo holding the expanded key only. */
export function pkcs8Expanded(type: WrappedKeyType, expandedKey: Uint8Array): Uint8Array {
  return privateKeyInfo(type, tlv(0x04, expandedKey));
}

/** DER of a PKCS#8 PrivateKeyInfo holding both the seed and the expanded key. */
export function pkcs8Both(type: WrappedKeyType, seed: Uint8Array, expandedKey: Uint8Array): Uint8Array {
  return privateKeyInfo(type, tlv(0x30, concatBytes(tlv(0x04, seed), tlv(0x04, expandedKey))));
}

function privateKeyInfo(type: WrappedKeyType, privateKey: Uint8Array): Uint8Array {
  const version = tlv(0x02, Uint8Array.of(0));
  const algorithm = tlv(0x30, tlv(0x06, Uint8Array.from(ALGORITHM_OIDS[type])));
  return tlv(0x30, concatBytes(version, algorithm, tlv(0x04, privateKey)));
}

/** One DER tag-length-value with a definite length. */
function tlv(tag: number, body: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(tag), derLength(body.length), body);
}

function derLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.from([0x80 | bytes.length, ...bytes]);
}
