// SHA3-256 (FIPS 202) through OpenSSL; it derives svcId (D-031) and pqcAddress (D-042).
import { createHash } from 'node:crypto';
import { asUint8Array, assertBytes } from './bytes.ts';

/** SHA3-256 of the bytes: 32 bytes. */
export function sha3_256(data: Uint8Array): Uint8Array {
  assertBytes('data', data);
  return asUint8Array(createHash('sha3-256').update(data).digest());
}
